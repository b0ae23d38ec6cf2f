/// Pool sizes and timeouts of the upstream client.
public struct HTTPClientConfiguration: Sendable, Equatable {
    /// Connections per pool (origin and pool name) and loop; further requests wait for one to be
    /// released.
    public var maxConnectionsPerPool = 32
    /// Time to establish a TCP connection.
    public var connectTimeout: Duration = .seconds(1)
    /// A pooled connection unused this long is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// Larger response bodies fail the request.
    public var maxResponseBytes = 8 << 20
    /// Sent as `User-Agent`.
    public var userAgent = "product-details"

    public init() {}
}
