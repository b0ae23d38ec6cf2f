import EventLoop
import Gzip
import ProductDetails

/// gzip at one level with one zlib stream per event loop, made on the loop's first body and
/// reset per body after that: no per-body stream set-up (about 256 KiB) and no lock.
///
/// Off the group's loops (the in-memory route tests, a task that outlived its loop) a body gets
/// a stream of its own: correct, only dearer, and production work runs on the loops.
final class LoopDeflaters: PageCompressor {
    /// Cached pages are compressed once and sent many times: zlib's default level, within a few
    /// bytes of level 9's size, for a few microseconds more than level 1 once per stored page
    /// (bench/HISTORY.md, issue 32).
    static let pageLevel: Int32 = 6
    /// Batches and `/metrics` are compressed per answer, on the loop: level 1, the only one that
    /// keeps a 100-id batch under a millisecond (bench/HISTORY.md, issue 32).
    static let onTheFlyLevel: Int32 = 1

    let level: Int32
    /// `nil` in a slot: zlib could not set a stream up on that loop, whose bodies stay identity.
    private let perLoop: LoopLocal<GzipDeflater?>
    private let loops: [EventLoop]

    init(group: EventLoopGroup, level: Int32) {
        self.level = level
        perLoop = LoopLocal(group: group)
        loops = group.loops
    }

    func gzip(_ body: [UInt8]) -> [UInt8]? {
        guard let loop = EventLoop.current, loop.index < loops.count, loops[loop.index] === loop else {
            return (try? GzipDeflater(level: level))?.compress(body)
        }
        let level = self.level
        return perLoop.value(on: loop) { try? GzipDeflater(level: level) }?.compress(body)
    }
}
