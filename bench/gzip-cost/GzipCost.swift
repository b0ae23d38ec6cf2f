// What gzip costs and saves on the service's own bodies: built and run by bench/gzip_cost.py,
// which exports the bodies first. Compiled with swiftc -O together with Sources/Gzip, so it
// measures the compressor the service uses (GzipCompressor, libdeflate), beside zlib's deflate at
// level 6 with a reused stream (what the service used before issue 32 moved to libdeflate).
//
// Usage: gzip-cost DIR   (DIR/pages/*.json, DIR/batch.json, DIR/metrics.txt)

import CZlib
import Foundation

@main
struct GzipCost {
    static let rounds = 25
    /// The service's level (App's `LoopDeflaters.level`), for the rows that are not about levels.
    static let serviceLevel: Int32 = 1

    static func main() throws {
        let directory = CommandLine.arguments.dropFirst().first ?? "."
        let pageDirectory = directory + "/pages"
        let pages = try FileManager.default.contentsOfDirectory(atPath: pageDirectory).sorted().map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: pageDirectory + "/" + $0)))
        }
        let batch = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/batch.json")))
        let metrics = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/metrics.txt")))
        let sizes = pages.map(\.count).sorted()
        let total = sizes.reduce(0, +)
        print("pages: \(pages.count), identity bytes min / median / max \(sizes[0]) / \(sizes[sizes.count / 2]) / \(sizes[sizes.count - 1]), total \(total)")
        print("rounds: \(rounds) per body; a body's time is its fastest round")
        print()

        print("| what | level | bytes after (of before) | median page us | p90 page us | empty body us |")
        print("|---|---|---|---|---|---|")
        for level: Int32 in [1, 2, 6, 9, 12] {
            let compressor = try GzipCompressor(level: level)
            row("page, libdeflate, one compressor", level, pages, total) { compressor.compress($0) }
        }
        let zlib = try ZlibDeflater(level: 6)
        row("page, zlib, one stream reset per page (before issue 32)", 6, pages, total) { zlib.compress($0) }
        row("page, libdeflate, a compressor per body (alloc + free)", serviceLevel, pages, total) {
            try! GzipCompressor(level: serviceLevel).compress($0)
        }
        let compressor = try GzipCompressor(level: serviceLevel)
        let inflater = try GzipInflater()
        let members = pages.map { compressor.compress($0) }
        let inflating = perBody(members) { blackHole(try! inflater.decompress($0, limit: 1 << 20)) }
        print("| page, inflate (zlib, reused stream) | - | - | \(inflating) | - |")
        for (name, body) in [("100-id batch", batch), ("/metrics", metrics)] {
            for level: Int32 in [1, 2, 6] {
                let compressor = try GzipCompressor(level: level)
                let size = compressor.compress(body).count
                print("| \(name), libdeflate | \(level) | \(size) of \(body.count) | \(perBody([body]) { blackHole(compressor.compress($0)) }) | - |")
            }
            let size = zlib.compress(body).count
            print("| \(name), zlib | 6 | \(size) of \(body.count) | \(perBody([body]) { blackHole(zlib.compress($0)) }) | - |")
        }
        print()

        // Below which size compressing is not worth it: the saving of a page's first n bytes.
        print("| identity bytes (a page's first n) | gzip bytes, libdeflate level \(serviceLevel) | saved | us |")
        print("|---|---|---|---|")
        let longest = pages.max { $0.count < $1.count }!
        for size in [128, 256, 384, 512, 768, 1024, 1400] where size <= longest.count {
            let body = Array(longest.prefix(size))
            let compressed = compressor.compress(body)
            let times = perBody([body]) { blackHole(compressor.compress($0)) }
            print("| \(size) | \(compressed.count) | \(size - compressed.count) | \(times.split(separator: " ").first!) |")
        }
    }

    /// One table row: the sizes `compress` gives the pages, its time per page, and per empty body
    /// (the fixed cost of a call: set-up, header and trailer, the copy out).
    static func row(_ what: String, _ level: Int32, _ pages: [[UInt8]], _ total: Int, _ compress: ([UInt8]) -> [UInt8]) {
        let compressed = pages.map(compress)
        let ratios = zip(compressed, pages).map { Double($0.count) / Double($1.count) }.sorted()
        let times = perBody(pages) { blackHole(compress($0)) }
        let empty = perBody([[]]) { blackHole(compress($0)) }.split(separator: " ").first!
        print("| \(what) | \(level) | \(compressed.map(\.count).reduce(0, +)) of \(total) (median page \(percent(ratios[ratios.count / 2]))) | \(times) | \(empty) |")
    }

    /// Each body's fastest of `rounds` runs of `work` (the machine is shared: the fastest is the
    /// one nothing preempted), then the median and 90th percentile of those over the bodies, in
    /// microseconds, as two table cells.
    static func perBody(_ bodies: [[UInt8]], _ work: ([UInt8]) -> Void) -> String {
        let clock = ContinuousClock()
        var fastest: [Double] = []
        for body in bodies {
            work(body)
            var best = Double.infinity
            for _ in 0..<rounds {
                let elapsed = clock.measure { work(body) }
                best = min(best, Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
            }
            fastest.append(best)
        }
        fastest.sort()
        return "\(format(fastest[fastest.count / 2])) | \(format(fastest[fastest.count * 9 / 10]))"
    }

    static func format(_ micros: Double) -> String { String(format: "%.2f", micros) }
    static func percent(_ ratio: Double) -> String { String(format: "%.0f%%", ratio * 100) }
}

/// zlib's deflate as the service ran it before issue 32 (gzip wrapper, memLevel 8, one stream
/// reset per body), kept here only as the reference row.
final class ZlibDeflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var scratch: [UInt8] = []

    init(level: Int32) throws {
        stream.initialize(to: z_stream())
        // deflateInit2 is a macro over deflateInit2_, which checks the caller's zlib version and
        // z_stream size; 15 + 16: the largest window, with a gzip header and trailer.
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw GzipError.outOfMemory }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func compress(_ body: [UInt8]) -> [UInt8] {
        precondition(deflateReset(stream) == Z_OK)
        let bound = Int(deflateBound(stream, uLong(body.count)))
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        let produced = body.withUnsafeBytes { input in
            scratch.withUnsafeMutableBufferPointer { output in
                stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_in = uInt(body.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = uInt(bound)
                precondition(deflate(stream, Z_FINISH) == Z_STREAM_END)
                return bound - Int(stream.pointee.avail_out)
            }
        }
        return Array(scratch[0..<produced])
    }
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
