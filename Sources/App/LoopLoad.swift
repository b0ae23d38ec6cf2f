import EventLoop
import ProductDetails

/// ``LocalLoad`` as the event loop running the caller measures it: saturated while the loop spent
/// at least ``threshold`` of its recent time working rather than waiting for I/O. Off the loops
/// (tests, start-up) never saturated.
struct LoopLoad: LocalLoad {
    /// Nine tenths: a loop this busy answers every event late by its queue, and a hedge's reply
    /// would wait in that queue too.
    static let threshold = 0.9

    var isSaturated: Bool {
        guard let loop = EventLoop.current else { return false }
        return loop.utilization >= Self.threshold
    }
}
