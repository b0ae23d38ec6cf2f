import EventLoop
import HTTP1
import Timekeeping

/// An HTTP/1.1 client for upstream calls. Connections are pooled per loop, origin and pool name,
/// so a handler's calls go out and come back on the loop it runs on, without a thread hop, and
/// calls hung in one pool never hold the connections another pool needs, even to one origin.
package final class HTTPClient: Sendable {
    package let group: EventLoopGroup
    package let configuration: HTTPClientConfiguration
    private let pools: LoopLocal<LoopPools>
    private let counters = ClientStatistics()
    /// The time line idle connections are timed on.
    private let time: any TimeSource

    package init(
        group: EventLoopGroup, configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
        time: (any TimeSource)? = nil
    ) {
        self.group = group
        self.configuration = configuration
        self.time = time ?? LoopTimeSource(fallbackLoop: group.loops[0])
        pools = LoopLocal(group: group)
    }

    package var statistics: HTTPClientStatistics { counters.snapshot }

    /// Sends one request and returns the whole answer, whatever its status. Throws on connection
    /// failures, malformed answers, the deadline (`timeout` covers waiting for a connection,
    /// connecting, sending and receiving) and cancellation.
    ///
    /// `pool` names the connections the request shares (an upstream's name): each name has its
    /// own `maxConnectionsPerPool` to each origin on each loop; callers that name none share "".
    package func execute(
        _ method: HTTPMethod = .get, _ origin: Origin, pool: String = "", path: String, headers: HTTPHeaders = HTTPHeaders(),
        fields: FieldBlock = FieldBlock(), timeout: Duration
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        let loop = group.any()
        let outcome: RequestExchange.Outcome
        if loop.inLoop {
            // Already on the loop (a handler's load): a preference pushed and popped per call
            // costs task-status locking and buys nothing.
            outcome = await perform(
                on: loop, method: method, origin: origin, pool: pool, path: path, headers: headers, fields: fields, timeout: timeout)
        } else {
            outcome = await withTaskExecutorPreference(loop) {
                await perform(
                    on: loop, method: method, origin: origin, pool: pool, path: path, headers: headers, fields: fields, timeout: timeout)
            }
        }
        return try outcome.get()
    }

    /// `GET` of `path` (appended to the origin's base path), in the connections of `pool`.
    /// `fields` are written after `headers`, as they are (see `HTTPRequestSerializer`).
    package func get(
        _ origin: Origin, pool: String = "", path: String, headers: HTTPHeaders = HTTPHeaders(), fields: FieldBlock = FieldBlock(),
        timeout: Duration
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        try await execute(.get, origin, pool: pool, path: path, headers: headers, fields: fields, timeout: timeout)
    }

    private func perform(
        on loop: EventLoop, method: HTTPMethod, origin: Origin, pool name: String, path: String, headers: HTTPHeaders,
        fields: FieldBlock, timeout: Duration
    ) async -> RequestExchange.Outcome {
        if Task.isCancelled { return .failure(.cancelled) }
        // A task preferring a stopped loop runs on the global pool: the loop's pools are gone.
        guard loop.inLoop else { return .failure(.shutdown) }
        let pool = pools.value(on: loop) { LoopPools() }.pool(
            named: name, to: origin, loop: loop, configuration: configuration, statistics: counters, time: time)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        HTTPRequestSerializer.writeHead(
            method: method, basePath: origin.basePath, path: path, host: origin.authority, headers: headers, fields: fields,
            defaultUserAgent: configuration.userAgent, into: &bytes)
        let exchange = RequestExchange(
            loop: loop, pool: pool, statistics: counters, bytes: bytes, method: method, timeout: timeout)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in exchange.start(continuation) }
        } onCancel: {
            loop.execute { exchange.abort(.cancelled) }
        }
    }

    /// Fails at once, on every loop and to every origin, the requests of pool `pool` still waiting
    /// for a connection (with `.dropped`): for when the upstream's circuit breaker opens, so calls
    /// queued behind hung ones do not wait out their deadlines. Requests already sent, or whose
    /// own connection is being opened, go on. Returns without waiting; each loop drops its queue
    /// on its next turn. Callable from any thread.
    package func failQueued(pool: String) {
        for loop in group.loops {
            loop.execute { [pools] in pools.existing(on: loop)?.dropWaiting(pool: pool) }
        }
    }

    /// Closes idle connections and fails queued requests on every loop.
    package func shutdown() async {
        for loop in group.loops {
            await Task(executorPreference: loop) { [pools] in
                pools.existing(on: loop)?.shutdown()
            }.value
        }
    }
}

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
