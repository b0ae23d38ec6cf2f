import HTTP1

/// Limits and timeouts of the HTTP server. Every value has a default that suits a public-facing
/// JSON API; the app reads overrides from the environment.
package struct ServerConfiguration: Sendable, Equatable {
    package var host: String = "0.0.0.0"
    package var port: Int = 8080
    package var limits = HTTPLimits()
    /// Time a client has, from the first byte of a request, to send its head and body (slowloris).
    package var requestReadTimeout: Duration = .seconds(10)
    /// Time an idle keep-alive connection stays open; also the time a client has to take output
    /// the connection waits on (`HTTPConnectionStateMachine.Timeouts.write`).
    package var idleTimeout: Duration = .seconds(60)
    /// Once a shutdown's grace period has ended, the time a connection still has to write what it
    /// was given (the `503` of a request cut short, an answer still queued) before it is reset.
    /// What is left then is bytes already made, a few hundred for a `503`: a client that reads
    /// takes them within a few round trips, far less than a second on any network a service is
    /// reached over, and one that takes nothing in a second is not reading. Short, because the
    /// whole shutdown must fit the platform's wait before it kills the process (Kubernetes'
    /// terminationGracePeriodSeconds, Compose's stop_grace_period): it lasts at most
    /// `SHUTDOWN_DELAY_SECONDS` + `SHUTDOWN_GRACE_SECONDS` + this, where waiting for the write
    /// timeout (`idleTimeout`) added a minute.
    package var shutdownWriteTimeout: Duration = .seconds(1)
    /// Connections beyond this are closed as soon as they are accepted.
    package var maxConnections = 10_000
    /// Requests handled at once across all loops; beyond it, `503` with `Retry-After` at once.
    package var maxInFlightRequests = 10_000
    /// Reading pauses while more than this much output waits for the kernel.
    package var maxQueuedOutputBytes = 1 << 20
    /// Reading pauses while this many pipelined bytes wait behind the request being answered.
    package var maxBufferedInputBytes = 64 * 1024
    package var listenBacklog: Int32 = 1024
    /// Client connections are polled edge-triggered (`TCPStream.pollEdgeTriggered`): requests are
    /// read in the order they arrived, which keeps the latency tail short under load.
    package var edgeTriggeredPolling = true

    package init() {}
}
