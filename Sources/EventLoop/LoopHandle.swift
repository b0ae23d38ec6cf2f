import CLibUV

/// Owns one libuv handle. The owner is retained from `init` until libuv's close callback, which is
/// also the only place the handle's memory is freed (libuv may touch it until then).
///
/// Loop-confined: created, used and closed on `loop`'s thread only.
package class LoopHandle {
    package let loop: EventLoop
    let raw: UnsafeMutableRawPointer
    package private(set) var isClosing = false

    var handle: UnsafeMutablePointer<uv_handle_t> { raw.assumingMemoryBound(to: uv_handle_t.self) }

    /// Allocates memory for a handle of `type`; the subclass initialises it with `uv_*_init` and
    /// then calls `adopt()`.
    init(loop: EventLoop, type: uv_handle_type) {
        precondition(loop.inLoop, "libuv handles are created on their loop's thread")
        self.loop = loop
        raw = .allocate(byteCount: uv_handle_size(type), alignment: 16)
    }

    /// Ties the initialised handle to this owner, retaining it until the close callback.
    func adopt() {
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    /// For a subclass whose `uv_*_init` failed: the handle was never initialised.
    func abandon() {
        raw.deallocate()
    }

    /// Closes the handle once; `didClose` runs in the close callback.
    package func close() {
        guard !isClosing else { return }
        beginClose()
        uv_close(handle, loopHandleClosed)
    }

    /// Marks the handle closing and lets the subclass drop its callbacks; for close paths other
    /// than `uv_close` (a TCP reset), which must end in `handleClosed`.
    func beginClose() {
        isClosing = true
        willClose()
    }

    static func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
        loopHandleClosed(handle)
    }

    /// Called just before `uv_close`: stop timers, drop callbacks, fail waiters.
    func willClose() {}

    /// Called from libuv's close callback, before the memory is freed.
    func didClose() {}

    static func owner(of handle: UnsafeMutablePointer<uv_handle_t>) -> LoopHandle? {
        guard let data = handle.pointee.data else { return nil }
        return Unmanaged<LoopHandle>.fromOpaque(data).takeUnretainedValue()
    }
}

private func loopHandleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle, let data = handle.pointee.data else { return }
    let owner = Unmanaged<LoopHandle>.fromOpaque(data)
    owner.takeUnretainedValue().didClose()
    handle.pointee.data = nil
    UnsafeMutableRawPointer(handle).deallocate()
    owner.release()
}
