/// Pool sizes and timeouts of the upstream client.
package struct HTTPClientConfiguration: Sendable, Equatable {
    /// Connections per pool (origin and pool name) and loop; further requests wait for one to be
    /// released.
    package var maxConnectionsPerPool = 32
    /// Time to establish a TCP connection.
    package var connectTimeout: Duration = .seconds(1)
    /// A pooled connection unused this long is closed.
    package var idleTimeout: Duration = .seconds(30)
    /// Larger response bodies fail the request.
    package var maxResponseBytes = 8 << 20
    /// Sent as `User-Agent`.
    package var userAgent = "product-details"

    package init() {}
}
