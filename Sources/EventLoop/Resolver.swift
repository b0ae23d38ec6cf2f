import CLibUV

/// Host name resolution through libuv's thread pool (`uv_getaddrinfo`), so a loop never blocks on
/// DNS. Numeric addresses skip the resolver.
package enum Resolver {
    /// Resolves `host` to TCP addresses, IPv4 first. `completion` runs on the loop thread.
    /// Loop-confined: call on `loop`'s thread.
    package static func resolve(
        host: String, port: Int, on loop: EventLoop, completion: @escaping (Result<[SocketAddress], UVError>) -> Void
    ) {
        if let numeric = try? SocketAddress(ip: host, port: port) {
            completion(.success([numeric]))
            return
        }
        let request = UnsafeMutablePointer<uv_getaddrinfo_t>.allocate(capacity: 1)
        let box = ResolveRequest(port: port, completion: completion)
        request.pointee.data = Unmanaged.passRetained(box).toOpaque()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        let rc = uv_getaddrinfo(loop.uvLoop, request, resolved, host, nil, &hints)
        if rc < 0 {
            Unmanaged<ResolveRequest>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            completion(.failure(UVError(code: rc)))
        }
    }
}

private final class ResolveRequest {
    let port: Int
    let completion: (Result<[SocketAddress], UVError>) -> Void

    init(port: Int, completion: @escaping (Result<[SocketAddress], UVError>) -> Void) {
        self.port = port
        self.completion = completion
    }
}

private func resolved(_ request: UnsafeMutablePointer<uv_getaddrinfo_t>?, _ status: Int32, _ result: UnsafeMutablePointer<addrinfo>?) {
    guard let request else { return }
    let box = Unmanaged<ResolveRequest>.fromOpaque(request.pointee.data).takeRetainedValue()
    request.deallocate()
    defer { if let result { uv_freeaddrinfo(result) } }
    guard status == 0 else {
        box.completion(.failure(UVError(code: status)))
        return
    }
    var v4: [SocketAddress] = []
    var v6: [SocketAddress] = []
    var entry = result
    while let current = entry {
        if let address = current.pointee.ai_addr {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
            }
            let port = UInt16(box.port).bigEndian
            if current.pointee.ai_family == AF_INET {
                withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = port } }
                v4.append(SocketAddress(storage: storage))
            } else if current.pointee.ai_family == AF_INET6 {
                withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = port } }
                v6.append(SocketAddress(storage: storage))
            }
        }
        entry = current.pointee.ai_next
    }
    let addresses = v4 + v6
    box.completion(addresses.isEmpty ? .failure(UVError(code: Int32(UV_EAI_NONAME.rawValue))) : .success(addresses))
}
