import CLibUV

/// An IPv4 or IPv6 address and port, as libuv's bind and connect take it.
package struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage

    /// Parses a numeric host ("127.0.0.1", "::1", "0.0.0.0").
    package init(ip: String, port: Int) throws(UVError) {
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

    package var family: Int32 { Int32(storage.ss_family) }

    package var description: String {
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

    /// The numeric address alone ("127.0.0.1", "::1"), without the port.
    package var ip: String {
        var copy = storage
        var text = [CChar](repeating: 0, count: 64)
        withUnsafePointer(to: &copy) { pointer in
            if family == AF_INET6 {
                _ = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { uv_ip6_name($0, &text, text.count) }
            } else {
                _ = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { uv_ip4_name($0, &text, text.count) }
            }
        }
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The port, in host byte order.
    package var port: Int {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// The size of the address structure its family uses, as `bind(2)` wants it.
    var length: socklen_t {
        socklen_t(family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
        }
    }
}
