import EventLoop
import Gzip
import ProductDetails

/// gzip with compressors kept per event loop, made on the loop's first body and reused after
/// that: no per-body allocation of their state and no lock. Two kinds, each for the bodies it is
/// cheapest on (bench/HISTORY.md, issue 32):
/// - pages stored into the cache (``gzip(_:)``, the domain's ``PageCompressor``): a
///   ``PageGzipper`` (igzip level 0, codes made from ``PageSamples``), whose set-up per
///   body is small next to a page of a kilobyte or two (libdeflate's for a page too small for
///   igzip's member to be smaller);
/// - bodies compressed per answer (``gzipAnswer(_:)``: batches, `/metrics`, tens of kilobytes
///   with long repeats): libdeflate's fastest level, which finds those repeats.
///
/// Off the group's loops (the in-memory route tests, a task that outlived its loop) a body gets
/// a compressor of its own: correct, only dearer, and production work runs on the loops.
final class LoopDeflaters: PageCompressor {
    /// libdeflate's fastest level: batches and `/metrics` are compressed on the loop per answer,
    /// where time counts more than the few percent of bytes its higher levels save.
    static let answerLevel: Int32 = 1

    private let pages: LoopLocal<PageGzipper>
    /// `nil` in a slot: libdeflate could not allocate on that loop, whose answers stay identity.
    private let answers: LoopLocal<GzipCompressor?>
    private let loops: [EventLoop]

    init(group: EventLoopGroup) {
        pages = LoopLocal(group: group)
        answers = LoopLocal(group: group)
        loops = group.loops
    }

    /// A page's gzip variant, made once when it is stored. igzip's member carries its codes (some
    /// 60 to 90 bytes), which a body of a few hundred bytes does not repay: when its member is no
    /// smaller than the body, libdeflate's (whose fixed codes need no table) is tried instead.
    func gzip(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        let page = groupLoop.map { loop in pages.value(on: loop) { PageGzipper(samples: PageSamples.bodies) } }
            ?? PageGzipper(samples: PageSamples.bodies)
        if let member = body.withUnsafeBytes({ page.compress($0) }), member.count < body.count { return member }
        return gzipAnswer(body)
    }

    /// An answer's body compressed for this answer alone.
    func gzipAnswer(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        let compressor: GzipCompressor?
        if let loop = groupLoop {
            compressor = answers.value(on: loop) { try? GzipCompressor(level: Self.answerLevel) }
        } else {
            compressor = try? GzipCompressor(level: Self.answerLevel)
        }
        return compressor.map { compressor in body.withUnsafeBytes { compressor.compress($0) } }
    }

    /// The group's loop this runs on, if any.
    private var groupLoop: EventLoop? {
        guard let loop = EventLoop.current, loop.index < loops.count, loops[loop.index] === loop else { return nil }
        return loop
    }
}
