import EventLoop
import Gzip
import ProductDetails

/// gzip with one libdeflate compressor per event loop, made on the loop's first body and reused
/// after that: no per-body allocation of its tables and no lock. One instance serves the pages
/// stored into the cache and the bodies compressed per answer (batches, `/metrics`) alike, so a
/// loop keeps one compressor's tables in its caches rather than two.
///
/// Off the group's loops (the in-memory route tests, a task that outlived its loop) a body gets
/// a compressor of its own: correct, only dearer, and production work runs on the loops.
final class LoopDeflaters: PageCompressor {
    /// libdeflate's fastest level, for both uses: on our pages clearly the cheapest of its levels
    /// and the one that keeps a stored page within issue 32's budget, for a few percent more bytes
    /// than levels 6 to 9, whose tables are also three times as large. Batches and `/metrics` are
    /// compressed on the loop per answer, where time counts more than bytes (bench/HISTORY.md,
    /// issue 32).
    static let level: Int32 = 1

    /// `nil` in a slot: libdeflate could not allocate on that loop, whose bodies stay identity.
    private let perLoop: LoopLocal<GzipCompressor?>
    private let loops: [EventLoop]

    init(group: EventLoopGroup) {
        perLoop = LoopLocal(group: group)
        loops = group.loops
    }

    func gzip(_ body: [UInt8]) -> [UInt8]? {
        guard let loop = EventLoop.current, loop.index < loops.count, loops[loop.index] === loop else {
            return (try? GzipCompressor(level: Self.level))?.compress(body)
        }
        return perLoop.value(on: loop) { try? GzipCompressor(level: Self.level) }?.compress(body)
    }
}
