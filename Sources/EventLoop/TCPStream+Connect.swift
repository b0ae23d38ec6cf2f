import CLibUV

extension TCPStream {
    /// Opens a connection to `address`; `completion` runs on the loop thread exactly once, with the
    /// connected stream or the error. Closing the returned stream before then cancels the attempt
    /// (the completion sees `UVError.cancelled`). Loop-confined.
    @discardableResult
    package static func connect(
        to address: SocketAddress, on loop: EventLoop, completion: @escaping (Result<TCPStream, UVError>) -> Void
    ) -> TCPStream? {
        let stream: TCPStream
        do {
            stream = try TCPStream(loop: loop)
        } catch {
            completion(.failure(error))
            return nil
        }
        stream.pendingConnect = completion
        let request = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        let rc = address.withSockaddr { uv_tcp_connect(request, stream.tcp, $0, tcpStreamConnected) }
        if rc < 0 {
            request.deallocate()
            stream.pendingConnect = nil
            stream.close()
            completion(.failure(UVError(code: rc)))
            return nil
        }
        return stream
    }

    fileprivate func connected(status: Int32) {
        guard let completion = pendingConnect else { return }
        pendingConnect = nil
        if status < 0 {
            close()
            completion(.failure(UVError(code: status)))
        } else if isClosing {
            completion(.failure(.cancelled))
        } else {
            completion(.success(self))
        }
    }
}

private func tcpStreamConnected(_ request: UnsafeMutablePointer<uv_connect_t>?, _ status: Int32) {
    guard let request else { return }
    let stream = request.pointee.handle
    request.deallocate()
    guard let stream else { return }
    let handle = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: uv_handle_t.self)
    (LoopHandle.owner(of: handle) as? TCPStream)?.connected(status: status)
}
