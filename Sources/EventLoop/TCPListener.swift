import CLibUV

/// A listening TCP socket on one loop. With `reusePort`, every loop of a group binds the same
/// port and the kernel spreads new connections across them. Loop-confined.
package final class TCPListener: LoopHandle {
    private var onAccept: ((TCPStream) -> Void)?
    /// The port actually bound (useful after binding port 0).
    package private(set) var port: Int = 0

    package init(
        loop: EventLoop, address: SocketAddress, backlog: Int32 = 1024, reusePort: Bool,
        onAccept: @escaping (TCPStream) -> Void
    ) throws(UVError) {
        super.init(loop: loop, type: UV_TCP)
        let tcp = raw.assumingMemoryBound(to: uv_tcp_t.self)
        let rc = uv_tcp_init_ex(loop.uvLoop, tcp, UInt32(address.family))
        if rc < 0 {
            abandon()
            throw UVError(code: rc)
        }
        adopt()
        do {
            if reusePort { try UVError.check(pd_set_reuseport(tcp)) }
            try UVError.check(address.withSockaddr { uv_tcp_bind(tcp, $0, 0) })
            try UVError.check(uv_listen(raw.assumingMemoryBound(to: uv_stream_t.self), backlog, tcpListenerConnection))
            let bound = pd_tcp_local_port(tcp)
            try UVError.check(bound)
            port = Int(bound)
        } catch {
            close()
            throw error
        }
        self.onAccept = onAccept
    }

    override func willClose() { onAccept = nil }

    fileprivate func accept() {
        guard let onAccept, let client = try? TCPStream(loop: loop) else { return }
        if uv_accept(raw.assumingMemoryBound(to: uv_stream_t.self), client.stream) == 0 {
            onAccept(client)
        } else {
            client.close()
        }
    }
}

private func tcpListenerConnection(_ server: UnsafeMutablePointer<uv_stream_t>?, _ status: Int32) {
    guard let server, status >= 0 else { return }
    let handle = UnsafeMutableRawPointer(server).assumingMemoryBound(to: uv_handle_t.self)
    (LoopHandle.owner(of: handle) as? TCPListener)?.accept()
}
