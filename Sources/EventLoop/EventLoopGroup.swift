import CLibUV
import Locking
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// N event loops, each on a thread of its own.
///
/// `@unchecked Sendable`: `loops` is immutable after `init`; `threads` and `next` are guarded by
/// `state`'s lock.
package final class EventLoopGroup: @unchecked Sendable {
    package let loops: [EventLoop]
    private let state = Locked(State())

    private struct State {
        var threads: [pthread_t] = []
        var next = 0
        var stopped = false
    }

    /// Starts `count` loops (default: one per core) and returns once every thread runs its loop.
    /// Each loop reads every socket into one buffer of `readBufferSize` bytes. `bypassing` is a
    /// test hook (see `EpollInterposerBypass`).
    package init(
        loopCount: Int = EventLoopGroup.coreCount, readBufferSize: Int = 64 * 1024, bypassing bypass: EpollInterposerBypass = []
    ) throws(UVError) {
        precondition(loopCount > 0, "an event loop group needs at least one loop")
        // libuv writes with write(2): a peer that closed must give EPIPE, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        var loops: [EventLoop] = []
        for index in 0..<loopCount {
            loops.append(try EventLoop(index: index, readBufferSize: readBufferSize, bypassing: bypass))
        }
        self.loops = loops
        var threads: [pthread_t] = []
        for loop in loops {
            threads.append(Self.startThread(for: loop))
        }
        state.withLock { $0.threads = threads }
    }

    /// The number of cores this process may use.
    package static var coreCount: Int {
        Int(uv_available_parallelism())
    }

    /// The loops in turn, for work that has no loop of its own yet.
    package func next() -> EventLoop {
        state.withLock { state in
            let loop = loops[state.next % loops.count]
            state.next &+= 1
            return loop
        }
    }

    /// The loop of the calling thread, else the next one in turn.
    package func any() -> EventLoop {
        if let current = EventLoop.current, loops.contains(where: { $0 === current }) { return current }
        return next()
    }

    /// Closes every handle on every loop, then joins the threads. Call from off the loops.
    package func shutdown() {
        precondition(EventLoop.current == nil, "shutdown() would join the thread it runs on")
        let threads: [pthread_t] = state.withLock { state in
            if state.stopped { return [] }
            state.stopped = true
            return state.threads
        }
        for loop in loops { loop.requestStop() }
        for thread in threads { pthread_join(thread, nil) }
    }

    private static func startThread(for loop: EventLoop) -> pthread_t {
        let started = ThreadStart(loop: loop)
        let box = Unmanaged.passRetained(started).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            start.loop.runOnCurrentThread(started: start.signalStarted)
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        started.waitUntilStarted()
        return thread
    }
}

/// Hands a loop to its new thread and lets the creator wait until the loop runs.
private final class ThreadStart: Sendable {
    let loop: EventLoop
    private let condition = ConditionSignal()

    init(loop: EventLoop) { self.loop = loop }

    func signalStarted() {
        condition.signal()
    }

    func waitUntilStarted() {
        condition.wait()
    }
}

/// A one-shot signal between threads, for start-up only (never used on a loop).
///
/// `@unchecked Sendable`: `mutex`, `cond` and `fired` are guarded by `mutex` itself.
private final class ConditionSignal: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()
    private var fired = false

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&cond, nil)
    }

    deinit {
        pthread_cond_destroy(&cond)
        pthread_mutex_destroy(&mutex)
    }

    func signal() {
        pthread_mutex_lock(&mutex)
        fired = true
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
    }

    func wait() {
        pthread_mutex_lock(&mutex)
        while !fired { pthread_cond_wait(&cond, &mutex) }
        pthread_mutex_unlock(&mutex)
    }
}
