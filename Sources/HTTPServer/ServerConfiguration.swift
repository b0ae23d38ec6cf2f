import HTTP1

/// Limits and timeouts of the HTTP server. Every value has a default that suits a public-facing
/// JSON API; the app reads overrides from the environment.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String = "0.0.0.0"
    public var port: Int = 8080
    public var limits = HTTPLimits()
    /// Time a client has, from the first byte of a request, to send its head and body (slowloris).
    public var requestReadTimeout: Duration = .seconds(10)
    /// Time an idle keep-alive connection stays open; also the time a client has to take output
    /// the connection waits on (`HTTPConnectionStateMachine.Timeouts.write`).
    public var idleTimeout: Duration = .seconds(60)
    /// Connections beyond this are closed as soon as they are accepted.
    public var maxConnections = 10_000
    /// Requests handled at once across all loops; beyond it, `503` with `Retry-After` at once.
    public var maxInFlightRequests = 10_000
    /// Reading pauses while more than this much output waits for the kernel.
    public var maxQueuedOutputBytes = 1 << 20
    /// Reading pauses while this many pipelined bytes wait behind the request being answered.
    public var maxBufferedInputBytes = 64 * 1024
    public var listenBacklog: Int32 = 1024
    /// Client connections are polled edge-triggered (`TCPStream.pollEdgeTriggered`): requests are
    /// read in the order they arrived, which keeps the latency tail short under load.
    public var edgeTriggeredPolling = true

    public init() {}
}
