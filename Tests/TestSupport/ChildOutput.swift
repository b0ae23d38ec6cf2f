import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Locking

/// What a child writes to one pipe, read on a thread of its own as it comes, so that a chatty
/// child never stalls on a full pipe unless a test asks for that (`holdingAfter`).
///
/// The reading thread owns the read end and closes it at the end of the pipe: closed from any
/// other thread, its number could be reused by a socket while a read on it is under way.
package final class ChildOutput: Sendable {
    private let state: Locked<State>
    /// Wakes a reader held by `holdingAfter`.
    private let released = DispatchSemaphore(value: 0)
    /// Left once the reader reached the end of the pipe.
    private let ended = DispatchGroup()

    private struct State {
        var bytes: [UInt8] = []
        var hold: Hold
    }

    private enum Hold {
        /// Consulted with the text so far after each read.
        case after(@Sendable (String) -> Bool)
        /// The reader waits for `released`.
        case holding
        case never
    }

    /// Starts reading `descriptor`, which it takes over. With `holdingAfter`, reading stops at
    /// the first read after which it holds for the text so far, until `release()`.
    init(reading descriptor: Int32, holdingAfter: (@Sendable (String) -> Bool)?) {
        state = Locked(State(hold: holdingAfter.map(Hold.after) ?? .never))
        ended.enter()
        Thread.detachNewThread { [self] in
            read(descriptor)
            close(descriptor)
            ended.leave()
        }
    }

    private func read(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            let holding = state.withLock { state in
                state.bytes += buffer[0..<count]
                if case .after(let condition) = state.hold, condition(String(decoding: state.bytes, as: UTF8.self)) {
                    state.hold = .holding
                }
                return if case .holding = state.hold { true } else { false }
            }
            if holding { released.wait() }
        }
    }

    /// What was read so far.
    package var text: String {
        state.withLock { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Reading goes on from where `holdingAfter` stopped it, or it will not stop.
    package func release() {
        let wasHolding = state.withLock { state in
            defer { state.hold = .never }
            return if case .holding = state.hold { true } else { false }
        }
        if wasHolding { released.signal() }
    }

    /// Everything the child wrote, once the pipe ended: when the child and everything that
    /// inherited the write end are gone.
    package func untilEnd() -> String {
        ended.wait()
        return text
    }
}
