import CLibUV

/// Calls back on the loop thread each time the process receives `signal` (e.g. SIGTERM).
/// Loop-confined.
package final class SignalWatcher: LoopHandle {
    private var callback: ((Int32) -> Void)?

    package init(loop: EventLoop, signal: Int32, _ callback: @escaping (Int32) -> Void) throws(UVError) {
        super.init(loop: loop, type: UV_SIGNAL)
        let signalHandle = raw.assumingMemoryBound(to: uv_signal_t.self)
        let rc = uv_signal_init(loop.uvLoop, signalHandle)
        if rc < 0 {
            abandon()
            throw UVError(code: rc)
        }
        adopt()
        self.callback = callback
        let started = uv_signal_start(signalHandle, signalReceived, signal)
        if started < 0 {
            close()
            throw UVError(code: started)
        }
    }

    override func willClose() { callback = nil }

    fileprivate func receive(_ signal: Int32) { callback?(signal) }
}

private func signalReceived(_ handle: UnsafeMutablePointer<uv_signal_t>?, _ signal: Int32) {
    guard let handle else { return }
    let base = UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self)
    (LoopHandle.owner(of: base) as? SignalWatcher)?.receive(signal)
}
