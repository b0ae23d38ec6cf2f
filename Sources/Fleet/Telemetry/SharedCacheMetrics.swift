import Metrics
import ProductDetails
import Redis

/// The shared cache's series: its reads, leases, the breaker, Redis commands and connections,
/// invalidations and L1 flushes. Registered at start in fleet mode only, so a single node's
/// `/metrics` is unchanged. Every series is made once, here: the hot paths only increment.
final class SharedCacheMetrics: Sendable {
    private let reads: SmallTable<SharedReadResult, Counter>
    private let leases: SmallTable<LeaseResult, Counter>
    private let breakerTransitions: SmallTable<String, Counter>
    private let breakerState: Gauge
    private let commands: SmallTable<String, Counter>
    private let commandDuration: Histogram
    private let writes: Counter
    private let busyPolls: SmallTable<String, Counter>
    private let published: SmallTable<String, Counter>
    private let received: SmallTable<String, Counter>
    private let flushes: SmallTable<String, Counter>
    private let subscriberConnected: Gauge
    private let reconnects: SmallTable<String, Counter>
    private let redirects: SmallTable<String, Counter>
    private let refreshes: SmallTable<String, Counter>
    private let clockSkews: SmallTable<PageClockSkew, Counter>
    private let masters: Gauge
    private let uncoveredSlots: Gauge
    /// Kept to point `redis_command_connections` at the client once it exists.
    private let registry: MetricsRegistry

    init(registry: MetricsRegistry) {
        self.registry = registry
        let scopes = InvalidationScope.oneOfEachLabel.map { ($0.label, $0.label) }
        func counters<Key: Equatable & Sendable>(_ name: String, _ help: String, _ label: String, _ keys: [(Key, String)]) -> SmallTable<Key, Counter> {
            SmallTable(keys.map { key, value in
                (key, registry.counter(name, help: help, labels: [(label, value)]))
            })
        }
        reads = counters("l2_reads_total", "Reads of the shared cache (Redis) by result.", "result", SharedReadResult.allCases.map { ($0, $0.rawValue) })
        leases = counters("leases_total", "Loads shared through the cache's lease that this replica took part in: lease won, waited for another replica, or taken over after a lapse.", "result", LeaseResult.allCases.map { ($0, $0.rawValue) })
        let states = [CircuitBreaker.State.closed, .open, .halfOpen].map(\.label)
        breakerTransitions = counters("redis_breaker_transitions_total", "Changes of the Redis circuit breaker, by new state.", "to", states.map { ($0, $0) })
        breakerState = registry.gauge("redis_breaker_state", help: "The Redis circuit breaker: 0 closed, 1 open (Redis skipped), 2 half-open.")
        let outcomes = ["reply", "error_reply", "timeout", "failed", "cancelled"]
        commands = counters("redis_commands_total", "Redis commands by outcome (cancelled: the caller left, not Redis's doing).", "outcome", outcomes.map { ($0, $0) })
        commandDuration = registry.histogram("redis_command_duration_seconds", help: "Time from a Redis command reaching its connection to its reply or failure.", buckets: DefaultBuckets.latencySeconds)
        writes = registry.counter(
            "redis_writes_total", help: "System calls that sent commands to Redis: redis_commands_total over this is how deep the commands were pipelined.")
        busyPolls = counters(
            "redis_busy_polls_total", "Lone Redis commands whose loop polled for the reply instead of sleeping, by whether it came within REDIS_BUSY_POLL_US (caught) or after (ran_out).",
            "result", ["caught", "ran_out"].map { ($0, $0) })
        published = counters("invalidations_published_total", "Invalidations this replica sent to the fleet, by scope.", "scope", scopes)
        received = counters("invalidations_received_total", "Invalidations received from the fleet (own ones included), by scope.", "scope", scopes)
        flushes = counters("l1_flushes_total", "Times the whole local cache was dropped, by reason.", "reason", ["invalidated", "resubscribed"].map { ($0, $0) })
        subscriberConnected = registry.gauge("redis_subscriber_connected", help: "1 while the invalidation subscription is active, 0 while invalidations may be missed.")
        reconnects = counters("redis_reconnects_total", "Redis connections lost (each is reopened), by connection.", "connection", ["command", "subscriber"].map { ($0, $0) })
        redirects = counters(
            "redis_cluster_redirects_total", "Redis Cluster replies that sent a command elsewhere (moved, ask) or asked for it later (tryagain, clusterdown).",
            "kind", ["moved", "ask", "tryagain", "clusterdown"].map { ($0, $0) })
        refreshes = counters(
            "redis_cluster_refreshes_total", "Reads of the Redis Cluster's slot map, by result (changed, unchanged, failed: no node answered).",
            "result", ["changed", "unchanged", "failed"].map { ($0, $0) })
        clockSkews = counters(
            "shared_page_ages_clamped_total",
            "Pages read from the shared cache whose age by this replica's clock was out of bounds by over a second, so clamped: stored in its future, or past their lifetime while Redis still held them. The replicas' clocks disagree.",
            "reason", PageClockSkew.allCases.map { ($0, $0.rawValue) })
        masters = registry.gauge("redis_cluster_masters", help: "Masters in the Redis Cluster's slot map as last read; 0 on a single Redis.")
        uncoveredSlots = registry.gauge("redis_cluster_uncovered_slots", help: "Hash slots no master serves in the slot map as last read (commands for them fail).")
        countConnections { [:] }
    }

    /// Counts `client`'s command connections from now on. The client is made after these metrics
    /// (its observer reports to them), so until then the series read 0.
    func countConnections(of client: RedisClient) {
        countConnections { client.readyConnections() }
    }

    private func countConnections(_ read: @escaping @Sendable () -> [RedisNodeRole: Int]) {
        for role in RedisNodeRole.allCases {
            // Registered again, a read gauge takes the new closure.
            registry.gauge(
                "redis_command_connections",
                help: "Redis command connections ready now, by their node's role in the slot map as last read (a single Redis is a master; unmapped: a node no map names).",
                labels: [("role", role.rawValue)]
            ) { Double(read()[role] ?? 0) }
        }
    }

    /// Reads from `shared`, when scraped, whether it has read the fleet's invalidation log since
    /// its subscription last started. Read, not set by events: two subscriptions in a row would
    /// otherwise race to set it, and the state is `shared`'s anyway.
    func readInvalidationLog(of shared: SharedCache) {
        registry.gauge(
            "invalidation_log_read",
            help: "1 once the fleet's invalidation log was read since the subscription last started; 0 while the shared cache is bypassed for want of it."
        ) { shared.knowsHistory ? 1 : 0 }
    }

    func sharedRead(_ result: SharedReadResult) { reads[result]?.increment() }
    func clockSkew(_ skew: PageClockSkew) { clockSkews[skew]?.increment() }
    func lease(_ result: LeaseResult) { leases[result]?.increment() }

    func breaker(_ state: CircuitBreaker.State) {
        breakerState.set(Double(state.gaugeValue))
        breakerTransitions[state.label]?.increment()
    }

    func published(_ scope: InvalidationScope) { published[scope.label]?.increment() }
    func received(_ scope: InvalidationScope) { received[scope.label]?.increment() }
    func flushed(because reason: String) { flushes[reason]?.increment() }
    func subscription(active: Bool) { subscriberConnected.set(active ? 1 : 0) }

    // MARK: Redis commands and connections

    func commandFinished(latency: Duration, outcome: RedisCommandOutcome) {
        let label: String
        switch outcome {
        case .reply: label = "reply"
        case .errorReply: label = "error_reply"
        case .timedOut: label = "timeout"
        case .failed(let error): label = error == .cancelled ? "cancelled" : "failed"
        }
        commands[label]?.increment()
        commandDuration.observe(latency)
    }

    func wrote() { writes.increment() }

    func busyPolled(caught: Bool) { busyPolls[caught ? "caught" : "ran_out"]?.increment() }

    func cluster(_ event: RedisClusterEvent) {
        switch event {
        case .redirected(let redirect):
            redirects[redirect.label]?.increment()
        case .refreshed(let change?):
            refreshes["changed"]?.increment()
            masters.set(Double(change.masters.count))
            uncoveredSlots.set(Double(change.uncoveredSlots))
        case .refreshed(nil):
            refreshes["unchanged"]?.increment()
        case .refreshFailed:
            refreshes["failed"]?.increment()
        case .single:
            masters.set(0)
            uncoveredSlots.set(0)
        }
    }

    func connectionChanged(_ change: RedisConnectionChange) {
        if case .disconnected(let role, let error) = change, error != .shutdown {
            reconnects[role.metricsLabel]?.increment()
        }
    }
}

/// What an invalidation covered: a metrics label.
extension RedisConnectionRole {
    var metricsLabel: String {
        switch self {
        case .command: "command"
        case .subscriber: "subscriber"
        }
    }
}
