import EventLoop

/// Where the service listens, settled before anything starts: `HOST` resolved to one numeric
/// address, and `PORT` checked free of other processes. Either failure is a bad setting, named as
/// the operator set it.
///
/// `PORT=0` stays 0: the listeners take the kernel's pick themselves. A port picked here and let
/// go is anyone's until the listeners bind it (another server's pick, the source port of any
/// outgoing connection), and a suite that starts many services at once hit that window.
struct ListenAddress: Sendable {
    /// The numeric address the listeners bind.
    let ip: String
    /// The port the listeners bind: 0 when the kernel is to pick it.
    let port: Int

    static func settle(host: String, port: Int, on loop: EventLoop) async throws(ConfigurationError) -> ListenAddress {
        let ip = try await resolve(host, on: loop)
        let address: SocketAddress
        do {
            address = try SocketAddress(ip: ip, port: port)
        } catch {
            throw ConfigurationError(setting: "HOST", reason: "\"\(host)\" cannot be listened on (\(error))")
        }
        do {
            // With port 0 the bind still proves that the address can be listened on.
            _ = try PortProbe.bindOnce(address)
            return ListenAddress(ip: ip, port: port)
        } catch where error == .addressInUse {
            throw ConfigurationError(
                setting: "PORT", reason: "\(port) on HOST \(host) is in use by another process (HOST=\(host), PORT=\(port))")
        } catch {
            throw ConfigurationError(setting: "HOST", reason: "cannot listen on \(host):\(port) (\(error))")
        }
    }

    /// A numeric address as it is; a host name through the resolver (its first IPv4 address, as
    /// the upstream client connects), so `HOST=localhost` works.
    private static func resolve(_ host: String, on loop: EventLoop) async throws(ConfigurationError) -> String {
        if (try? SocketAddress(ip: host, port: 0)) != nil { return host }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[SocketAddress], UVError>, Never>) in
            let scheduled = loop.execute {
                Resolver.resolve(host: host, port: 0, on: loop) { continuation.resume(returning: $0) }
            }
            if !scheduled { continuation.resume(returning: .failure(.cancelled)) }
        }
        switch result {
        case .success(let addresses) where !addresses.isEmpty:
            return addresses[0].ip
        case .success:
            throw ConfigurationError(setting: "HOST", reason: "\"\(host)\" resolves to no address")
        case .failure(let error):
            throw ConfigurationError(setting: "HOST", reason: "\"\(host)\" is neither an IP address nor a host name that resolves (\(error.name))")
        }
    }
}
