import Synchronization

#if TSAN_LOCKS
#if canImport(Glibc)
import Glibc
#endif
#endif

/// A value behind a lock, with `Synchronization.Mutex`'s interface.
///
/// Normally it *is* a `Mutex`. ThreadSanitizer on Linux does not see `Mutex`'s futex and reports
/// false races on everything it guards, so a build with `-D TSAN_LOCKS` (set by
/// `make test-tsan`) swaps in a pthread mutex, which TSan understands. Nothing else changes.
///
/// `@usableFromInline`: Swift 6.3 inlines `@inlinable` members into other modules only from a
/// type that is `public` or `@usableFromInline`, and takes the attribute on any other without a
/// word (scripts/check-inlinable.py). Out of line, every lock taken elsewhere called an
/// unspecialized `withLock` that looked up the generic metadata of its `Mutex` at run time;
/// inlined, it is the `Mutex` itself.
@usableFromInline
package struct Locked<Value: ~Copyable>: ~Copyable {
    #if TSAN_LOCKS
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let storage: UnsafeMutablePointer<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        storage = .allocate(capacity: 1)
        storage.initialize(to: initialValue)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.pointee)
    }
    #else
    @usableFromInline let mutex: Mutex<Value>

    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
    #endif
}

#if TSAN_LOCKS
/// `storage` is only reached inside `withLock`, under `mutex`.
extension Locked: @unchecked Sendable where Value: ~Copyable {}
#else
extension Locked: Sendable where Value: ~Copyable {}
#endif
