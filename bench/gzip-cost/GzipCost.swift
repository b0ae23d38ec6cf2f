// What gzip costs and saves on the service's own bodies: built and run by bench/gzip_cost.py,
// which exports the bodies first. Compiled with swiftc -O together with Sources/Gzip, so it
// measures the wrapper the service uses.
//
// Usage: gzip-cost DIR   (DIR/pages/*.json, DIR/batch.json, DIR/metrics.txt)

import Foundation

@main
struct GzipCost {
    static let rounds = 25

    static func main() throws {
        let directory = CommandLine.arguments.dropFirst().first ?? "."
        let pageDirectory = directory + "/pages"
        let pages = try FileManager.default.contentsOfDirectory(atPath: pageDirectory).sorted().map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: pageDirectory + "/" + $0)))
        }
        let batch = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/batch.json")))
        let metrics = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/metrics.txt")))
        let sizes = pages.map(\.count).sorted()
        print("pages: \(pages.count), identity bytes min / median / max \(sizes[0]) / \(sizes[sizes.count / 2]) / \(sizes[sizes.count - 1]), total \(sizes.reduce(0, +))")
        print("rounds: \(rounds) per body; a body's time is its fastest round")
        print()

        print("| what | level | memLevel | bytes after (of before) | median page us | p90 page us | empty body us |")
        print("|---|---|---|---|---|---|---|")
        for (level, memoryLevel): (Int32, Int32) in [(1, 8), (4, 8), (6, 8), (9, 8), (6, 5), (6, 4), (1, 4)] {
            let deflater = try GzipDeflater(level: level, memoryLevel: memoryLevel)
            let compressed = pages.map { deflater.compress($0) }
            let ratios = zip(compressed, pages).map { Double($0.count) / Double($1.count) }.sorted()
            let times = perBody(pages) { blackHole(deflater.compress($0)) }
            print("| page, reused stream | \(level) | \(memoryLevel) | \(compressed.map(\.count).reduce(0, +)) of \(sizes.reduce(0, +)) (median page \(percent(ratios[ratios.count / 2]))) | \(times) | \(empty(deflater)) |")
        }
        let setUp = perBody(pages) { blackHole(try! GzipDeflater(level: 6).compress($0)) }
        let emptySetUp = perBody([[]]) { blackHole(try! GzipDeflater(level: 6).compress($0)) }.split(separator: " ").first!
        print("| page, new stream per body (deflateInit2 + deflateEnd) | 6 | 8 | same | \(setUp) | \(emptySetUp) |")
        let deflater = try GzipDeflater(level: 6)
        let inflater = try GzipInflater()
        let members = pages.map { deflater.compress($0) }
        let inflating = perBody(members) { blackHole(try! inflater.decompress($0, limit: 1 << 20)) }
        print("| page, inflate (reused stream) | 6 | 8 | - | \(inflating) | - |")
        for (name, body) in [("100-id batch", batch), ("/metrics", metrics)] {
            for level: Int32 in [1, 2, 4, 6] {
                let deflater = try GzipDeflater(level: level)
                let size = deflater.compress(body).count
                print("| \(name) | \(level) | 8 | \(size) of \(body.count) | \(perBody([body]) { blackHole(deflater.compress($0)) }) | - |")
            }
        }
        print()

        // Below which size compressing is not worth it: the saving of a page's first n bytes.
        print("| identity bytes (a page's first n) | gzip bytes, level 6 | saved | us |")
        print("|---|---|---|---|")
        let longest = pages.max { $0.count < $1.count }!
        for size in [128, 256, 384, 512, 768, 1024, 1400] where size <= longest.count {
            let body = Array(longest.prefix(size))
            let compressed = deflater.compress(body)
            let times = perBody([body]) { blackHole(deflater.compress($0)) }
            print("| \(size) | \(compressed.count) | \(size - compressed.count) | \(times.split(separator: " ").first!) |")
        }
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

    /// The fixed cost of one body: reset, bound, an empty member, the copy out.
    static func empty(_ deflater: GzipDeflater) -> Substring {
        perBody([[]]) { blackHole(deflater.compress($0)) }.split(separator: " ").first!
    }

    static func format(_ micros: Double) -> String { String(format: "%.2f", micros) }
    static func percent(_ ratio: Double) -> String { String(format: "%.0f%%", ratio * 100) }
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
