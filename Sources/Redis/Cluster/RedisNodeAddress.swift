/// A node of a Redis Cluster as the cluster names it: host and port. A node that does not know
/// its own address is named with an empty host: it is the node that was asked.
package struct RedisNodeAddress: Sendable, Hashable, CustomStringConvertible {
    /// `nil`: the node that gave this address (Redis wrote an empty or `?` host).
    package let host: String?
    package let port: Int

    package init(host: String?, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port` as `MOVED` and `ASK` write it; the port is after the last colon (an IPv6
    /// address is written without brackets).
    package init?(endpoint: Substring) {
        guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]),
              (1...65535).contains(port)
        else { return nil }
        let host = endpoint[..<colon]
        self.init(host: host.isEmpty || host == "?" ? nil : String(host), port: port)
    }

    package var description: String {
        "\(host ?? "?"):\(port)"
    }
}
