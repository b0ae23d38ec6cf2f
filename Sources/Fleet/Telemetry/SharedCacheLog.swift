import Logging
import ProductDetails
import Redis
import Timekeeping

/// The shared cache's log lines: Redis connections, the cluster's map and the breaker. Losing Redis is a warning (the
/// service still answers, as a single node); a host name that does not resolve, or credentials
/// Redis refuses, is an error: only an operator can fix it (as for an upstream's host name).
/// Failed reconnect attempts repeat while Redis is down, so they are rate limited and say how
/// many were held back.
final class SharedCacheLog: Sendable {
    private let logger: Logger
    private let time: any TimeSource
    private let attempts = LogRateLimiter(linesPerSecond: 1)
    /// A reshard changes the map at every refresh: one line a second at most.
    private let topology = LogRateLimiter(linesPerSecond: 1)

    init(logger: Logger, time: any TimeSource) {
        self.logger = logger
        self.time = time
    }

    func connection(_ change: RedisConnectionChange) {
        switch change {
        case .connected(let role):
            logger.info("redis connected", [("connection", role.logLabel)])
        case .disconnected(let role, let error):
            guard error != .shutdown else { return }
            logger.warn("redis connection lost: reconnecting", [("connection", role.logLabel), ("reason", error.detail)])
        case .connectAttemptFailed(let role, let error):
            guard let heldBack = attempts.admit(now: time.now) else { return }
            var fields = [("connection", role.logLabel), ("reason", error.detail)]
            if heldBack > 0 { fields.append(("suppressed", String(heldBack))) }
            if error.isPermanent {
                logger.error("redis refused this service: fix REDIS_URL (no retry)", fields)
            } else if error.isHostNotFound {
                logger.error("redis unreachable: its host name does not resolve", fields)
            } else {
                logger.warn("redis connect attempt failed", fields)
            }
        }
    }

    func cluster(_ event: RedisClusterEvent) {
        switch event {
        case .redirected, .refreshed(nil):
            return
        case .refreshed(let change?):
            guard let heldBack = topology.admit(now: time.now) else { return }
            var fields = [
                ("masters", change.masters.map(\.description).joined(separator: ",")), ("uncovered_slots", String(change.uncoveredSlots)),
            ]
            if heldBack > 0 { fields.append(("suppressed", String(heldBack))) }
            if change.uncoveredSlots > 0 {
                logger.warn("redis cluster map read: some slots have no master", fields)
            } else {
                logger.info("redis cluster map read", fields)
            }
        case .refreshFailed:
            guard let heldBack = topology.admit(now: time.now) else { return }
            logger.warn("redis cluster map could not be read from any known node", heldBack > 0 ? [("suppressed", String(heldBack))] : [])
        case .single:
            logger.info("redis is a single server (no cluster)")
        }
    }

    func breaker(_ state: CircuitBreaker.State) {
        switch state {
        case .open:
            logger.warn("redis circuit breaker open: requests skip Redis (single-node behaviour)", [("state", state.label)])
        case .halfOpen:
            logger.info("redis circuit breaker half-open: one request probes Redis", [("state", state.label)])
        case .closed:
            logger.info("redis circuit breaker closed: the shared cache is used again", [("state", state.label)])
        }
    }

    func subscription(_ event: String, _ fields: [(String, String)] = []) {
        logger.info(event, fields)
    }
}

extension RedisConnectionRole {
    var logLabel: String {
        switch self {
        case .command(let loop): "command (loop \(loop))"
        case .subscriber: "subscriber"
        }
    }
}
