import RESP

/// The rules of one request on a Redis Cluster, from its first send to its answer, without
/// sockets or clocks: `MOVED` is followed (and tells the topology), `ASK` is followed once with
/// `ASKING`, `TRYAGAIN` and `CLUSTERDOWN` are sent again after short pauses, but never past the
/// caller's deadline, and never more than a few redirects in a row (a map that keeps pointing
/// elsewhere is a cluster in flux: the error reply then goes back to the caller, who carries on
/// without the shared cache for this request).
package struct RedisClusterCall: Sendable {
    package enum Action: Sendable, Equatable {
        /// Send `request` to `node`.
        case send(RedisRequest, to: RedisNodeAddress)
        /// Wait until `instant`, then call ``pauseEnded(owner:)``.
        case pause(until: Duration)
        /// The caller's answer: a reply, error replies included.
        case answer(RESPValue)
    }

    /// Redirects followed before the reply is given up on (go-redis and valkey-swift follow a
    /// handful; more means the map moves faster than requests can follow).
    package static let maxRedirects = 5
    /// The first pause after `TRYAGAIN` or `CLUSTERDOWN`, doubled each time up to ``longestPause``.
    package static let firstPause = Duration.milliseconds(5)
    package static let longestPause = Duration.milliseconds(100)

    package let request: RedisRequest
    package let deadline: Duration
    private(set) package var redirects = 0
    private var pauses = 0
    /// Where the last send went: a redirect naming no host means that node's host.
    private var lastNode: RedisNodeAddress?

    package init(_ request: RedisRequest, deadline: Duration) {
        self.request = request
        self.deadline = deadline
    }

    /// The first send, to the slot's owner as the topology knows it.
    package mutating func start(owner: RedisNodeAddress) -> Action {
        send(request, to: owner)
    }

    /// The node answered. A redirect comes back with the action, for the topology and the
    /// metrics. `now` is read only for a pause: nearly every reply is the answer.
    package mutating func replied(_ reply: RESPValue, now: @autoclosure () -> Duration) -> (action: Action, redirect: RedisRedirect?) {
        guard let redirect = Self.redirect(in: reply) else { return (.answer(reply), nil) }
        switch redirect {
        case .moved(let slot, let target), .ask(let slot, let target):
            redirects += 1
            let node = RedisNodeAddress(host: target.host ?? lastNode?.host, port: target.port)
            let resolved: RedisRedirect = if case .moved = redirect { .moved(slot: slot, to: node) } else { .ask(slot: slot, to: node) }
            guard redirects <= Self.maxRedirects else { return (.answer(reply), resolved) }
            if case .moved = redirect { return (send(request, to: node), resolved) }
            return (send(.asking(request), to: node), resolved)
        case .tryAgain, .clusterDown:
            var pause = Self.firstPause
            for _ in 0..<min(pauses, 8) { pause = min(pause * 2, Self.longestPause) }
            pauses += 1
            let until = now() + pause
            guard until < deadline else { return (.answer(reply), redirect) }
            return (.pause(until: until), redirect)
        }
    }

    /// The redirect or pause `reply` asks for, if any: with none, it is the answer whatever the
    /// call's state (``replied(_:now:)``), which a caller may learn without stepping a copy.
    package static func redirect(in reply: RESPValue) -> RedisRedirect? {
        guard let message = reply.errorMessage else { return nil }
        return RedisRedirect(errorMessage: message)
    }

    /// The pause is over: the request goes again to its slot's owner, as now known.
    package mutating func pauseEnded(owner: RedisNodeAddress) -> Action {
        send(request, to: owner)
    }

    private mutating func send(_ request: RedisRequest, to node: RedisNodeAddress) -> Action {
        lastNode = node
        return .send(request, to: node)
    }
}
