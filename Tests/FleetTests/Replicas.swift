@testable import Fleet
import Locking
@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// Replicas of a fleet in one process: services sharing one in-memory page store, one fake
/// catalogue and one hand-moved time line, each with its own L1.
struct Replicas {
    let time = ManualTimeSource()
    let catalog = FakeCatalog()
    let events = RecordingEvents()
    let store: InMemorySharedPageStore
    let shared: SharedCacheSettings
    private let settings: ServiceSettings

    /// `answersWithoutTask`: whether the store's peek answers through a callback, as Redis's does
    /// on an event loop (``ProductDetailsService/firstLook(_:completion:)``).
    init(shared: SharedCacheSettings = SharedCacheSettings(), service: ServiceSettings = ServiceSettings(), answersWithoutTask: Bool = true) {
        self.shared = shared
        var settings = service
        // Hedges would park on the clock beside the loads the tests step.
        settings.hedging = nil
        self.settings = settings
        store = InMemorySharedPageStore(time: time, leaseDuration: shared.leaseDuration, answersWithoutTask: answersWithoutTask)
    }

    /// A new replica: its own L1 and breaker, the fleet's store; subscribed, so it has read the
    /// fleet's invalidation log as a running replica would.
    func replica(requestDeadline: Duration? = nil) async -> ProductDetailsService {
        var settings = self.settings
        if let requestDeadline { settings.requestDeadline = requestDeadline }
        let sharedCache = SharedCache(store: store, settings: shared, time: time, events: events)
        await sharedCache.subscribed()
        return ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: settings, time: time, events: events,
            loads: FleetLoads(sharedCache), random: { $0.lowerBound })
    }

    /// What the subscription does on each of `replicas` when the last invalidation's message
    /// arrives (the in-memory store publishes nothing).
    func deliver(_ scope: InvalidationScope, to replicas: [ProductDetailsService]) async {
        for replica in replicas {
            replica.sharedCache?.received(store.lastSequence, scope)
            replica.dropCachedCopies(scope)
            await replica.stopJoiningLoads(scope)
        }
    }

    /// The product's name from now on, as an edit upstream would change it.
    func rename(to name: String) {
        catalog.productPort.respond { id, _ in .success(Product(id: id, name: name, priceInCents: 1999, currency: "EUR")) }
    }

    /// Moves time on by `step` whenever a task sleeps on it (pauses between looks, renewals),
    /// until `condition` holds.
    func drive(until condition: @Sendable () -> Bool, step: Duration = .milliseconds(1), sourceLocation: SourceLocation = #_sourceLocation) async {
        for _ in 0..<1_000_000 {
            if condition() { return }
            if time.sleeperCount > 0 { time.advance(by: step) }
            await Task.yield()
        }
        Issue.record("the condition never held", sourceLocation: sourceLocation)
    }

    /// Runs `detail` in a task that counts itself into `finished` when done.
    func start(_ replica: ProductDetailsService, _ id: String, noCache: Bool = false, finished: Finished) -> Task<DetailAnswer, any Error> {
        Task {
            defer { finished.add() }
            return try await replica.detail(id: id, noCache: noCache, requestID: "req-\(id)")
        }
    }
}

extension ProductDetailsService {
    /// The shared cache of a replica's load path; `nil` on a single node.
    var sharedCache: SharedCache? { (loads as? FleetLoads)?.shared }
}
