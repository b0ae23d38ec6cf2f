import Logging
import EventLoop
import ProductDetails
import Redis
import Locking
import Metrics
import Timekeeping

/// Fleet mode's moving parts: the pipelined Redis client (one connection per loop and node), the shared
/// page store on it, and the one invalidation subscription of the process, whose events keep
/// this replica's L1 honest.
///
/// While the subscription is down, invalidations sent by other replicas may be lost (pub/sub
/// delivers at most once), so L1 freshness is capped; when it is up, the whole L1 is dropped
/// (``InvalidationListener``).
package final class FleetRuntime: Sendable {
    package let url: RedisURL
    package let keys: SharedCacheKeys
    let client: RedisClient
    let shared: SharedCache
    /// The service's load path in fleet mode: the shared cache first.
    package var loads: any LoadPath { FleetLoads(shared) }
    /// The shared cache's metrics and log lines.
    let telemetry: SharedCacheTelemetry
    private let settings: SharedCacheSettings
    /// Set once the service exists (it needs `shared` first); read by subscription events.
    private let subscription: SubscriptionBox

    /// Registers the shared cache's series in `registry`; connects nothing until ``start(service:loop:time:)``.
    /// `serviceSettings`: the service's, whose page lifetimes bound how long generations live;
    /// `busyPoll`: the Redis connections' (``RedisCommandConnectionConfiguration/busyPoll``).
    package init(
        url: RedisURL, settings: SharedCacheSettings, serviceSettings: ServiceSettings, keyPrefix: String, busyPoll: Duration,
        group: EventLoopGroup, time: any TimeSource, registry: MetricsRegistry, logger: Logger
    ) {
        self.url = url
        self.keys = SharedCacheKeys(prefix: keyPrefix)
        self.settings = settings
        telemetry = SharedCacheTelemetry(metrics: SharedCacheMetrics(registry: registry), log: SharedCacheLog(logger: logger, time: time))
        var commandSettings = RedisCommandConnectionConfiguration()
        commandSettings.connectTimeout = max(settings.timeout, .seconds(1))
        commandSettings.busyPoll = busyPoll
        client = RedisClient(url: url, loops: group.loops, configuration: commandSettings, time: time, observer: telemetry.redisObserver)
        telemetry.metrics.countConnections(of: client)
        // Generation tokens outlive every page stored under them, so one expires only after its pages.
        let longestPage = max(serviceSettings.ttl, serviceSettings.notFoundTTL) + max(serviceSettings.staleIfError, serviceSettings.staleWhileRevalidate)
        let metrics = telemetry.metrics
        let store = RedisPageStore(
            redis: client, keys: keys, leaseDuration: settings.leaseDuration,
            generationLifetime: max(.seconds(60), longestPage * 2), clockSkew: { metrics.clockSkew($0) })
        shared = SharedCache(store: store, settings: settings, time: time, events: telemetry)
        telemetry.metrics.readInvalidationLog(of: shared)
        subscription = SubscriptionBox()
        telemetry.metrics.subscription(active: false)
    }

    /// Connects, and subscribes on `loop` with `service` forgetting what the fleet invalidates.
    package func start(service: ProductDetailsService, loop: EventLoop, time: any TimeSource) {
        // Until the first subscription, invalidations may be missed too.
        service.capLocalFreshness(to: settings.disconnectedFreshness)
        client.start()
        let listener = InvalidationListener(
            service: service, shared: shared, metrics: telemetry.metrics, log: telemetry.log, disconnectedFreshness: settings.disconnectedFreshness)
        let subscription = RedisSubscription(
            url: url, channels: [keys.invalidationChannel], loop: loop, time: time, observer: telemetry.redisObserver, client: client,
            onEvent: listener.handle)
        self.subscription.value = subscription
        subscription.start()
    }

    /// Counts an invalidation this replica sent.
    package func published(_ reach: InvalidationReach, scope: InvalidationScope) {
        if case .fleet = reach { telemetry.metrics.published(scope) }
    }

    package func shutdown() async {
        await subscription.value?.shutdown()
        await client.shutdown()
    }
}

/// The subscription, made after the runtime (it needs the service).
private final class SubscriptionBox: Sendable {
    private let stored = Locked<RedisSubscription?>(nil)

    var value: RedisSubscription? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
