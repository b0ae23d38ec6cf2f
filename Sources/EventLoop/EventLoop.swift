import CEdgeTriggered
import CLibUV
import Locking
import Synchronization
import Timekeeping

#if canImport(Glibc)
import Glibc
#endif

/// One libuv loop on one thread, and the Swift executor for everything that runs on it.
///
/// Work reaches the loop two ways. From its own thread, jobs go to `localWork`, which needs no
/// lock; the prepare handle drains it right before libuv blocks in poll, so nothing enqueued by an
/// I/O callback waits for the next wake-up. From other threads, work goes to `inbox` under a lock
/// and `uv_async_send` wakes the loop (libuv coalesces those wake-ups; the async callback drains
/// everything that has arrived).
///
/// `@unchecked Sendable`: `uvLoop`, `wakeup`, `drainer`, `poller`, `busyPoll`, `pollerClosed`,
/// `localWork`, `spareWork`, `inboxSpare`, `isDraining`, `closesHandlesWhenDrained`,
/// `readBuffer`, `madeTimerQueue` and `utilizationMeter` are touched only on the loop thread
/// (after `init`, which runs before the thread starts).
/// `inbox` is a `Mutex`, `lifecycle` an `Atomic`.
package final class EventLoop: @unchecked Sendable {
    /// The position of this loop in its group; stable for the loop's life.
    package let index: Int

    let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private let wakeup: UnsafeMutablePointer<uv_async_t>
    private let drainer: UnsafeMutablePointer<uv_prepare_t>
    /// Active while ``busyPoll`` polls: libuv polls without blocking while an idle handle is
    /// active (its documented contract for `uv_idle_t`).
    private let poller: UnsafeMutablePointer<uv_idle_t>
    private var busyPoll = LoopBusyPoll()
    /// The stop closed `poller` (its memory goes in its close callback): busy polling is over.
    private var pollerClosed = false
    private var localWork: [LoopWork] = []
    private var spareWork: [LoopWork] = []
    private var inboxSpare: [RemoteWork] = []
    /// A drain is running on the loop thread (``drain()`` is never re-entered).
    private var isDraining = false
    /// The stop began: the running drain closes every handle once the queues are empty.
    private var closesHandlesWhenDrained = false
    private let inbox = Locked(Inbox())
    private let lifecycle = Atomic<Int>(Lifecycle.created.rawValue)

    /// The serial executor of actors bound to this loop. A separate object, because one `enqueue`
    /// cannot tell a task-executor job from an actor job, and they must run differently.
    /// Set once at the end of `init`, before the loop is shared.
    package private(set) var serialExecutor: LoopSerialExecutor!

    /// Scratch memory for libuv reads: a read callback consumes it before the next allocation.
    let readBuffer: UnsafeMutableRawBufferPointer

    private var madeTimerQueue: LoopTimerQueue?
    private var utilizationMeter = LoopUtilization()

    /// The share of this loop's recent time spent working rather than waiting for I/O (0 to 1,
    /// ``LoopUtilization``). Only on the loop's thread.
    package var utilization: Double {
        let now = uv_hrtime()
        // Busy polling is waiting too: counted as idle, so a loop polling for a reply does not
        // look saturated.
        return utilizationMeter.read(now: now) { [uvLoop, busyPoll] in uv_metrics_idle_time(uvLoop) &+ busyPoll.polledTime(now: now) }
    }

    /// The loop's scheduled callbacks (``LoopTimeSource/schedule(after:target:)``), made on first use.
    var timerQueue: LoopTimerQueue {
        if let madeTimerQueue { return madeTimerQueue }
        let queue = LoopTimerQueue(loop: self)
        madeTimerQueue = queue
        return queue
    }

    private struct Inbox {
        var work: [RemoteWork] = []
        /// Set under the lock before the async handle closes, so no sender touches a closing handle.
        var closed = false
    }

    private enum Lifecycle: Int {
        case created, running, stopping, stopped
    }

    init(index: Int, readBufferSize: Int = 64 * 1024, bypassing bypass: EpollInterposerBypass = []) throws(UVError) {
        self.index = index
        uvLoop = .allocate(capacity: 1)
        wakeup = .allocate(capacity: 1)
        drainer = .allocate(capacity: 1)
        poller = .allocate(capacity: 1)
        readBuffer = .allocate(byteCount: readBufferSize, alignment: 16)
        try UVError.check(uv_loop_init(uvLoop))
        // Time blocked in poll, for `utilization`: a clock read around each poll.
        try UVError.check(pd_measure_idle_time(uvLoop))
        pd_edge_triggered_watch_loop(uv_backend_fd(uvLoop), true)
        if !bypass.isEmpty {
            pd_edge_triggered_bypass_loop(uv_backend_fd(uvLoop), bypass.contains(.registrations), bypass.contains(.reports))
        }
        uvLoop.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        try UVError.check(uv_async_init(uvLoop, wakeup, eventLoopWakeup))
        wakeup.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        try UVError.check(uv_prepare_init(uvLoop, drainer))
        drainer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        try UVError.check(uv_prepare_start(drainer, eventLoopPrepare))
        // The drainer must not keep the loop alive on its own; the async handle does until stop.
        uv_unref(UnsafeMutableRawPointer(drainer).assumingMemoryBound(to: uv_handle_t.self))
        try UVError.check(uv_idle_init(uvLoop, poller))
        poller.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_unref(UnsafeMutableRawPointer(poller).assumingMemoryBound(to: uv_handle_t.self))
        serialExecutor = LoopSerialExecutor(loop: self)
    }

    deinit {
        readBuffer.deallocate()
        uvLoop.deallocate()
    }

    /// The loop whose thread is running the caller, if any.
    package static var current: EventLoop? {
        guard let raw = pthread_getspecific(LoopThreadKey.key) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(raw).takeUnretainedValue()
    }

    /// True when called on this loop's thread.
    package var inLoop: Bool {
        pthread_getspecific(LoopThreadKey.key) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `work` on the loop thread: right away in order with other jobs if called there,
    /// otherwise after waking the loop. Returns false when the loop has already stopped.
    @discardableResult
    package func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        submit(.closure(work))
    }

    func submit(_ work: RemoteWork) -> Bool {
        if inLoop {
            switch work {
            case .job(let job): localWork.append(.job(job))
            case .actorJob(let job): localWork.append(.actorJob(job))
            case .closure(let closure): localWork.append(.closure(closure))
            }
            return true
        }
        return inbox.withLock { inbox in
            if inbox.closed { return false }
            inbox.work.append(work)
            // Sent under the lock: the handle cannot be closing while we hold it.
            uv_async_send(wakeup)
            return true
        }
    }

    /// Runs every queued job, including those that the jobs themselves enqueue; then, once a stop
    /// was asked for, closes the handles.
    ///
    /// Never re-entered: work it runs (the stop, for one) may ask for a drain, and a nested one
    /// would swap the batch being run back into the queues and run it a second time; a task's
    /// job run twice resumes the task twice. The running drain goes on until nothing is queued.
    func drain() {
        guard !isDraining else { return }
        isDraining = true
        defer { isDraining = false }
        while true {
            if !localWork.isEmpty {
                swap(&localWork, &spareWork)
                for work in spareWork { run(work) }
                spareWork.removeAll(keepingCapacity: true)
                continue
            }
            inbox.withLock { inbox in swap(&inbox.work, &inboxSpare) }
            if inboxSpare.isEmpty { break }
            for work in inboxSpare {
                switch work {
                case .job(let job): run(.job(job))
                case .actorJob(let job): run(.actorJob(job))
                case .closure(let closure): closure()
                }
            }
            inboxSpare.removeAll(keepingCapacity: true)
        }
        if closesHandlesWhenDrained {
            closesHandlesWhenDrained = false
            uv_walk(uvLoop, closeEveryHandle, nil)
            // Its timer is closing: what still waits will never run, and holds the loop.
            madeTimerQueue = nil
        }
    }

    private func run(_ work: LoopWork) {
        switch work {
        case .job(let job):
            job.runSynchronously(on: asUnownedTaskExecutor())
        case .actorJob(let job):
            job.runSynchronously(isolatedTo: serialExecutor.asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        case .closure(let closure):
            closure()
        }
    }

    /// The body of the loop thread: runs until `requestStop` has closed every handle.
    func runOnCurrentThread(started: () -> Void) {
        pthread_setspecific(LoopThreadKey.key, Unmanaged.passUnretained(self).toOpaque())
        lifecycle.store(Lifecycle.running.rawValue, ordering: .releasing)
        started()
        drain()
        uv_run(uvLoop, UV_RUN_DEFAULT)
        drain()
        pd_edge_triggered_watch_loop(uv_backend_fd(uvLoop), false)
        uv_loop_close(uvLoop)
        lifecycle.store(Lifecycle.stopped.rawValue, ordering: .releasing)
        pthread_setspecific(LoopThreadKey.key, nil)
    }

    /// Polls for I/O without blocking until ``endBusyPoll()`` or for `budget`, whichever comes
    /// first (``LoopBusyPoll``): for a caller about to get a reply sooner than a blocked loop
    /// would wake up. Each call must be matched by one `endBusyPoll()`. Only on the loop's thread.
    package func beginBusyPoll(for budget: Duration) {
        // Work run by the stop's last drain, after every handle closed, must not start it.
        guard !pollerClosed else { return }
        let nanoseconds = UInt64(clamping: max(.zero, budget).wholeNanoseconds)
        if busyPoll.begin(budget: nanoseconds, now: uv_hrtime()) { uv_idle_start(poller, eventLoopPolled) }
    }

    package func endBusyPoll() {
        guard !pollerClosed else { return }
        if busyPoll.end(now: uv_hrtime()) { uv_idle_stop(poller) }
    }

    /// Whether the loop polls without blocking now (for tests).
    package var isBusyPolling: Bool {
        busyPoll.isPolling
    }

    fileprivate func polled() {
        if busyPoll.turn(now: uv_hrtime()) { uv_idle_stop(poller) }
    }

    /// Asks the loop to close every handle it owns and return from `uv_run`.
    /// Handle memory is freed by each owner's close callback, never here.
    package func requestStop() {
        execute { [self] in beginStop() }
    }

    /// Refuses remote work from now on; what is queued still runs, then every handle closes.
    /// It runs as queued work, so inside a drain: that drain does the rest once the queues are
    /// empty.
    private func beginStop() {
        guard lifecycle.compareExchange(
            expected: Lifecycle.running.rawValue, desired: Lifecycle.stopping.rawValue, ordering: .acquiringAndReleasing
        ).exchanged else { return }
        inbox.withLock { $0.closed = true }
        closesHandlesWhenDrained = true
        drain()
    }

    fileprivate func closeInternalHandle(_ handle: UnsafeMutablePointer<uv_handle_t>) {
        if handle == UnsafeMutableRawPointer(wakeup).assumingMemoryBound(to: uv_handle_t.self) {
            uv_close(handle) { handle in handle?.deallocate() }
        } else if handle == UnsafeMutableRawPointer(drainer).assumingMemoryBound(to: uv_handle_t.self) {
            uv_close(handle) { handle in handle?.deallocate() }
        } else if handle == UnsafeMutableRawPointer(poller).assumingMemoryBound(to: uv_handle_t.self) {
            pollerClosed = true
            uv_close(handle) { handle in handle?.deallocate() }
        } else {
            // A handle owned by a Swift object: its close path releases the owner.
            LoopHandle.owner(of: handle)?.close()
        }
    }
}

/// A unit of work for the loop: an executor job, stored as is so a job costs no closure
/// allocation, or a closure. Work from the loop's own thread needs no `Sendable`.
/// Task jobs run as the task executor: nonisolated async code then stays put instead of asking to
/// leave an "actor". Jobs of actors whose executor is this loop run isolated to it.
enum LoopWork {
    case job(UnownedJob)
    case actorJob(UnownedJob)
    case closure(() -> Void)
}

/// Work handed over from another thread.
enum RemoteWork: Sendable {
    case job(UnownedJob)
    case actorJob(UnownedJob)
    case closure(@Sendable () -> Void)
}

/// The thread-specific slot that names the loop running on a thread.
enum LoopThreadKey {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()
}

private func loop(of handle: UnsafeMutableRawPointer?) -> EventLoop? {
    guard let data = handle?.assumingMemoryBound(to: uv_handle_t.self).pointee.data else { return nil }
    return Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue()
}

private func eventLoopWakeup(_ handle: UnsafeMutablePointer<uv_async_t>?) {
    loop(of: handle)?.drain()
}

private func eventLoopPolled(_ handle: UnsafeMutablePointer<uv_idle_t>?) {
    loop(of: handle)?.polled()
}

private func eventLoopPrepare(_ handle: UnsafeMutablePointer<uv_prepare_t>?) {
    loop(of: handle)?.drain()
}

private func closeEveryHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?, _ argument: UnsafeMutableRawPointer?) {
    guard let handle, uv_is_closing(handle) == 0 else { return }
    guard let raw = uv_handle_get_loop(handle).pointee.data else { return }
    Unmanaged<EventLoop>.fromOpaque(raw).takeUnretainedValue().closeInternalHandle(handle)
}

/// A test hook: what a group's loops leave as if libuv had not called CEdgeTriggered's
/// `epoll_ctl` (`registrations`: no EPOLLET added) or `epoll_wait` (`reports`: no peer-closed
/// notes), as with a libuv that submits `epoll_ctl` through io_uring. Lets tests prove that
/// `EdgeTriggeredPollingCheck` notices and that the service then polls level-triggered.
package struct EpollInterposerBypass: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let registrations = EpollInterposerBypass(rawValue: 1)
    package static let reports = EpollInterposerBypass(rawValue: 2)
}
