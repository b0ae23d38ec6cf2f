import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// Finds out whether a port is free for this process before its listeners take it.
///
/// The listeners set `SO_REUSEPORT` so that every loop of the process can bind the same port, but
/// the option also lets a second process whose sockets set it (a second instance of this service)
/// bind that port, and the kernel then splits the connections between the two. A bind without
/// `SO_REUSEPORT` fails while any other socket holds the port, so one such bind, closed at once,
/// tells the two cases apart.
///
/// A race remains: another process can take the port between this probe and the first listener's
/// bind. The window is the start-up of this process, and the probe only has to catch the common
/// mistake of starting an instance twice.
package enum PortProbe {
    /// Binds `address` once (port 0: the kernel picks one) and lets it go; returns the port bound.
    /// Throws `EADDRINUSE` when another socket holds it.
    package static func bindOnce(_ address: SocketAddress) throws(UVError) -> Int {
        let socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.family, socketType, 0)
        guard descriptor >= 0 else { throw UVError(code: -errno) }
        defer { close(descriptor) }
        // As libuv's own bind does: sockets of a previous run still in TIME_WAIT do not hold the
        // port, only a bound or listening socket does.
        var on: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw UVError(code: -errno)
        }
        let bound = address.withSockaddr { bind(descriptor, $0, address.length) }
        guard bound == 0 else { throw UVError(code: -errno) }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw UVError(code: -errno) }
        return SocketAddress(storage: local).port
    }
}
