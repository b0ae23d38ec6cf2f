import JSON
import ProductDetails
import Synchronization
import Timekeeping

#if canImport(Glibc)
import Glibc
#endif

/// Takes formatted log lines from any thread and writes them from a thread of its own, so that a
/// slow or stuck sink (a full pipe, a lagging log shipper) never stalls an event loop.
///
/// Callers append under a mutex that is never held across I/O: the writer thread swaps the
/// pending batch out and writes it unlocked, in large writes, in the order the lines were
/// appended. It wakes when a batch reaches `batchBytes`, when a warn, error or lifecycle line
/// comes, when it was idle, or after `gatherInterval`; so under load the callers make no system
/// call for the writer, and a quiet service wakes it for nothing.
///
/// `@unchecked Sendable`: `buffer`, `writerWaiting`, `writing`, `stopping`, `urgent`,
/// `flushWaiters` and `thread` are guarded by `mutex`; `wake` and `idle` are condition variables on it;
/// `droppedRequests` and `droppedOther` are atomics.
package final class LogWriter: @unchecked Sendable {
    private let destination: LogDestination
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The writer waits on it for lines to write.
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    /// Flushers wait on it for the writer to be done.
    private let idle: UnsafeMutablePointer<pthread_cond_t>
    private var buffer: LogBuffer
    private var writerWaiting = false
    private var writing = false
    private var stopping = false
    private var urgent = false
    private var flushWaiters = 0
    private let droppedRequests = Atomic<Int>(0)
    private let droppedOther = Atomic<Int>(0)
    private var thread: pthread_t?

    static let batchBytes = 64 * 1024
    static let gatherInterval: Duration = .milliseconds(5)

    /// Starts the writer thread. `capacity` bounds the bytes waiting while a batch is written
    /// (so at most twice it is held in all).
    package init(capacity: Int, destination: LogDestination) {
        self.destination = destination
        buffer = LogBuffer(capacity: capacity)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        wake = .allocate(capacity: 1)
        pthread_cond_init(wake, &attributes)
        idle = .allocate(capacity: 1)
        pthread_cond_init(idle, &attributes)
        pthread_condattr_destroy(&attributes)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let writer = Unmanaged<LogWriter>.fromOpaque(raw!).takeRetainedValue()
            writer.run()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        self.thread = thread
    }

    /// Lines dropped since start because the sink did not keep up: request (and debug) lines,
    /// and the others.
    package var droppedLines: (request: Int, other: Int) {
        (droppedRequests.load(ordering: .relaxed), droppedOther.load(ordering: .relaxed))
    }

    /// Appends one line (`body` writes all of it after `{"time":"…",`); never blocks on the sink.
    func append(_ kind: LogBuffer.Kind, body: (inout JSONBytesWriter) -> Void) {
        pthread_mutex_lock(mutex)
        let wasEmpty = buffer.pendingBytes == 0
        let kept = buffer.append(kind, at: .now(), body: body)
        if !kept {
            switch kind {
            case .request: droppedRequests.wrappingAdd(1, ordering: .relaxed)
            case .kept: droppedOther.wrappingAdd(1, ordering: .relaxed)
            }
        } else if kind == .kept {
            urgent = true
        }
        let signal = writerWaiting && kept && (wasEmpty || kind == .kept || buffer.pendingBytes >= Self.batchBytes)
        pthread_mutex_unlock(mutex)
        if signal { pthread_cond_signal(wake) }
    }

    /// Waits until every line appended before the call is written, or `timeout` passed (a sink
    /// stuck in `write(2)` is not waited for past it); returns whether everything was written.
    @discardableResult
    package func flush(within timeout: Duration) -> Bool {
        var deadline = Self.deadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        flushWaiters += 1
        defer { flushWaiters -= 1 }
        pthread_cond_signal(wake)
        while !buffer.isEmpty || writing {
            if pthread_cond_timedwait(idle, mutex, &deadline) == ETIMEDOUT {
                return buffer.isEmpty && !writing
            }
        }
        return true
    }

    /// Flushes within `timeout`, then lets the thread end once nothing is left. Lines appended
    /// later stay unwritten. Returns whether everything was written.
    @discardableResult
    package func close(within timeout: Duration) -> Bool {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_mutex_unlock(mutex)
        guard flush(within: timeout) else { return false }
        pthread_mutex_lock(mutex)
        let joinable = thread.take()
        pthread_mutex_unlock(mutex)
        // Unlocked: the thread takes the mutex on its way out.
        if let joinable { pthread_join(joinable, nil) }
        return true
    }

    deinit {
        pthread_cond_destroy(wake)
        pthread_cond_destroy(idle)
        pthread_mutex_destroy(mutex)
        wake.deallocate()
        idle.deallocate()
        mutex.deallocate()
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            if buffer.isEmpty {
                pthread_cond_broadcast(idle)
                if stopping { break }
                writerWaiting = true
                pthread_cond_wait(wake, mutex)
                writerWaiting = false
                continue
            }
            if !urgent, !stopping, flushWaiters == 0, buffer.pendingBytes < Self.batchBytes {
                var deadline = Self.deadline(after: Self.gatherInterval)
                writerWaiting = true
                pthread_cond_timedwait(wake, mutex, &deadline)
                writerWaiting = false
            }
            let batch = buffer.takePending(at: .now())
            urgent = false
            writing = true
            pthread_mutex_unlock(mutex)
            if !destination.write(batch) {
                droppedOther.wrappingAdd(batch.lazy.filter { $0 == 0x0A }.count, ordering: .relaxed)
            }
            pthread_mutex_lock(mutex)
            writing = false
            buffer.recycle(consume batch)
        }
        pthread_mutex_unlock(mutex)
    }

    private static func deadline(after interval: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, fraction) = interval.wholeNanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        var nanoseconds = Int(now.tv_nsec) + Int(fraction)
        var wholeSeconds = Int(now.tv_sec) + Int(seconds)
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds += 1
        }
        return timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds)
    }
}
