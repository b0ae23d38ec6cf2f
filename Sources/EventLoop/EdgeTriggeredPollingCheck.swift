/// Proves at start-up, on each loop's own epoll instance, the two things edge-triggered polling
/// of client connections relies on; where either fails, connections must be polled
/// level-triggered, which is always correct.
///
/// Edge-triggered polling works because libuv calls the `epoll_ctl` and `epoll_wait` that
/// CEdgeTriggered defines in place of the C library's. That holds for glibc and libuv 1.44, which
/// call them through the dynamic symbol table; it would silently stop holding with a libuv that
/// submits `epoll_ctl` through io_uring (1.45 and later can) or a static build that binds the C
/// library's own. So each loop connects to itself over loopback and checks:
/// 1. a marked socket's registration, read back from the kernel (`/proc/self/fdinfo`), carries
///    `EPOLLET` and `EPOLLRDHUP`: the interposed `epoll_ctl` ran;
/// 2. when the peer closes, the note taken by the interposed `epoll_wait` is there when libuv
///    reports the end of the stream: the interposed `epoll_wait` ran.
package enum EdgeTriggeredPollingCheck {
    package enum Outcome: Sendable, Equatable {
        case passed
        /// What failed, on which loop, for the start-up warning.
        case failed(String)
    }

    /// How long one loop's check may take before it counts as failed.
    package static let timeout: Duration = .seconds(2)

    /// Runs the check on every loop of `group`, one after another; the first failure is the outcome.
    package static func run(on group: EventLoopGroup) async -> Outcome {
        for loop in group.loops {
            let outcome = await run(on: loop)
            if case .failed(let reason) = outcome { return .failed("loop \(loop.index): \(reason)") }
        }
        return .passed
    }

    /// Runs the check on `loop`.
    package static func run(on loop: EventLoop) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let started = loop.execute {
                EdgeTriggeredPollingProbe(loop: loop) { continuation.resume(returning: $0) }.start()
            }
            if !started { continuation.resume(returning: .failed("the loop has stopped")) }
        }
    }
}
