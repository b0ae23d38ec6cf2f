import Locking
import Synchronization

/// Turns the first of some process signals into the end of an `await`: how both executables wait
/// for SIGTERM or SIGINT. The watchers live on one loop, because libuv's signal handles are
/// loop-confined.
package final class SignalWaiter: Sendable {
    private let state = Locked(State())

    private struct State {
        var received: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
        var watchers: [LoopBound<SignalWatcher>] = []
    }

    package init() {}

    /// Installs watchers on `loop`: from now on the first of `signals` is kept for ``wait()``
    /// instead of ending the process.
    package func watch(on loop: EventLoop, for signals: [Int32]) async throws {
        try await Task(executorPreference: loop) { [self] in
            var watchers: [LoopBound<SignalWatcher>] = []
            for signal in signals {
                let watcher = try SignalWatcher(loop: loop, signal: signal) { [self] received in deliver(received) }
                watchers.append(LoopBound(watcher, loop: loop))
            }
            state.withLock { $0.watchers = watchers }
        }.value
    }

    /// The first signal received since ``watch(on:for:)`` (at once if it has already arrived).
    package func wait() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let already = state.withLock { state -> Int32? in
                if let received = state.received { return received }
                state.waiter = continuation
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
    }

    /// Closes the signal handles on their loop, for a process that outlives its waiting.
    package func stop() async {
        let watchers = state.withLock { state in
            defer { state.watchers = [] }
            return state.watchers
        }
        guard let loop = watchers.first?.loop else { return }
        await Task(executorPreference: loop) {
            for watcher in watchers { watcher.value.close() }
        }.value
    }

    private func deliver(_ signal: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard state.received == nil else { return nil }
            state.received = signal
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: signal)
    }
}
