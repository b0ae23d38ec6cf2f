import CLibUV

/// An IPv4 or IPv6 address and port, as libuv's bind and connect take it.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage

    /// Parses a numeric host ("127.0.0.1", "::1", "0.0.0.0").
    public init(ip: String, port: Int) throws(UVError) {
        var storage = sockaddr_storage()
        let rc: Int32 = withUnsafeMutablePointer(to: &storage) { pointer in
            if ip.contains(":") {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { uv_ip6_addr(ip, Int32(port), $0) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { uv_ip4_addr(ip, Int32(port), $0) }
        }
        try UVError.check(rc)
        self.storage = storage
    }

    init(storage: sockaddr_storage) { self.storage = storage }

    public var family: Int32 { Int32(storage.ss_family) }

    public var description: String {
        var copy = storage
        var text = [CChar](repeating: 0, count: 64)
        return withUnsafePointer(to: &copy) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    uv_ip6_name(address, &text, text.count)
                    return "[\(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })]:\(UInt16(bigEndian: address.pointee.sin6_port))"
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                uv_ip4_name(address, &text, text.count)
                return "\(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }):\(UInt16(bigEndian: address.pointee.sin_port))"
            }
        }
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
        }
    }
}
