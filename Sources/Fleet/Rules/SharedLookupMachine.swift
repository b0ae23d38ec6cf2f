import ProductDetails
/// The rules of a load's shared-cache phase, without Redis or a clock: what the shared cache
/// answered comes in as events, with `now` on the service's time line, and the machine says what
/// to do next. ``FleetLoads`` does it (sends the command, sleeps, spawns the refresh)
/// and feeds the outcome back, so every rule (the herd waiting for one holder, the takeover of a
/// lapsed lease, the waiter's deadline, the stale refresh, the budget) is tested exactly, with no
/// clock and no server.
///
/// The page is there: it answers. It is not: whoever takes the lease loads, the others read
/// again with growing pauses until the page appears or the lease lapses (then one of them takes
/// it over). Every command draws on one budget for the whole miss (``SharedTimeBudget``); the
/// wait itself is bounded by the load's `deadline`: a wait that would reach it gives up (`504`, or
/// stale-if-error) rather than going upstream on a deadline of its own, which would double the
/// request's time. A failed command or a spent budget sends the load upstream at once, as on a
/// single node.
struct SharedLookupMachine {
    enum Action: Equatable {
        /// Read the page, with its lease attempt; then ``readAnswered(_:now:)`` or
        /// ``readFailed(now:)``.
        case read(deadline: Duration)
        /// The page read is stale: try to take its lease at `generation`; then
        /// ``claimAnswered(_:now:)``.
        case claim(generation: SharedGeneration, deadline: Duration)
        /// Another replica loads the page: sleep this long, then ``pauseEnded(now:)``. `lease` is
        /// the lease result to count, the first time this load waits.
        case pause(for: Duration, lease: LeaseResult?)
        /// Serve the shared page while it is fresh (`remaining` of its TTL left).
        case answerFresh(CachedDocument, remaining: Duration, status: SharedCacheStatus)
        /// Serve the shared page stale (`staleness` past its TTL), and, with `refresh`, refresh it
        /// for the fleet in the background under that claim (a load nobody waits for).
        case answerStale(CachedDocument, staleness: Duration, status: SharedCacheStatus, refresh: SharedClaim?, lease: LeaseResult?)
        /// Load from the upstreams: for the fleet under `claim`, or for this replica alone without one.
        case load(claim: SharedClaim?, status: SharedCacheStatus, lease: LeaseResult?)
        /// The wait would outlast the load's deadline: the load fails with
        /// ``ProductDetailsError/sharedLoadTimedOut``.
        case giveUp(lease: LeaseResult?)
    }

    private enum State {
        case idle
        /// A read was sent at `since`.
        case reading(since: Duration)
        /// A claim on a stale page was sent at `since`.
        case claiming(since: Duration, document: CachedDocument, staleness: Duration, revalidate: Bool)
        /// A claim on a page that may not be served (it shows an invalidated product) was sent.
        case claimingInvalidated(since: Duration)
        case pausing
        case done
    }

    private var state = State.idle
    private var budget: SharedTimeBudget
    private var waited = false
    private var pause: Duration
    private let pollMax: Duration
    /// The load's deadline: no pause may reach it.
    private let deadline: Duration

    init(settings: SharedCacheSettings, deadline: Duration) {
        budget = SharedTimeBudget(settings.timeout)
        pause = settings.pollInitial
        pollMax = settings.pollMax
        self.deadline = deadline
    }

    /// The first step of a load that reads the shared cache.
    mutating func start(now: Duration) -> Action {
        guard case .idle = state else { preconditionFailure("start(now:) twice") }
        return nextRead(now: now)
    }

    mutating func readAnswered(_ read: SharedRead, now: Duration) -> Action {
        guard case .reading(let since) = state else { preconditionFailure("a read answered that was not sent") }
        budget.charge(from: since, to: now)
        switch read {
        case .claimed(let claim):
            return finish(.load(claim: claim, status: status(.miss), lease: leaseTaken))
        case .page(let page, let age, let generation):
            switch page.standing(age: age) {
            case .fresh(let document, let remaining):
                return finish(.answerFresh(document, remaining: remaining, status: status(.hit, ttlRemaining: remaining)))
            case .stale(let document, let staleness, let revalidate, _):
                guard let deadline = budget.deadline(now: now) else {
                    return staleClaimed(nil, document: document, staleness: staleness, revalidate: revalidate, now: now)
                }
                state = .claiming(since: now, document: document, staleness: staleness, revalidate: revalidate)
                return .claim(generation: generation, deadline: deadline)
            case .miss:
                return wait(now: now)
            }
        case .loadingElsewhere:
            return wait(now: now)
        case .invalidated(let generation):
            guard let deadline = budget.deadline(now: now) else {
                return finish(.load(claim: nil, status: status(.bypass), lease: nil))
            }
            state = .claimingInvalidated(since: now)
            return .claim(generation: generation, deadline: deadline)
        }
    }

    /// The read got no answer (it failed, timed out, or the breaker refused it).
    mutating func readFailed(now: Duration) -> Action {
        guard case .reading = state else { preconditionFailure("a read failed that was not sent") }
        return finish(.load(claim: nil, status: status(.bypass), lease: nil))
    }

    /// The claim on a stale page: the lease, or `nil` (another holds it, or the claim failed).
    mutating func claimAnswered(_ claim: SharedClaim?, now: Duration) -> Action {
        switch state {
        case .claiming(let since, let document, let staleness, let revalidate):
            budget.charge(from: since, to: now)
            return staleClaimed(claim, document: document, staleness: staleness, revalidate: revalidate, now: now)
        case .claimingInvalidated(let since):
            budget.charge(from: since, to: now)
            // The page it had is not one to serve: as on a miss, load it or wait for whoever does.
            guard let claim else { return wait(now: now) }
            return finish(.load(claim: claim, status: status(.miss), lease: leaseTaken))
        default:
            preconditionFailure("a claim answered that was not sent")
        }
    }

    mutating func pauseEnded(now: Duration) -> Action {
        guard case .pausing = state else { preconditionFailure("a pause ended that was not taken") }
        return nextRead(now: now)
    }

    private mutating func nextRead(now: Duration) -> Action {
        guard let deadline = budget.deadline(now: now) else {
            return finish(.load(claim: nil, status: status(.bypass), lease: nil))
        }
        state = .reading(since: now)
        return .read(deadline: deadline)
    }

    private mutating func staleClaimed(
        _ claim: SharedClaim?, document: CachedDocument, staleness: Duration, revalidate: Bool, now: Duration
    ) -> Action {
        let lease = claim == nil ? nil : leaseTaken
        if revalidate {
            // As with a stale L1 page: served now, refreshed by whoever got the lease.
            return finish(.answerStale(
                document, staleness: staleness, status: status(.stale, ttlRemaining: .zero - staleness), refresh: claim, lease: lease))
        }
        if let claim {
            // RFC 9211: a stale copy found is `fwd=stale`, and `ttl` describes the response sent,
            // which is the new page, not the expired copy: no negative ttl.
            return finish(.load(claim: claim, status: status(.stale), lease: lease))
        }
        // Past revalidation and another replica loads it: wait for its page as on a miss.
        return wait(now: now)
    }

    private mutating func wait(now: Duration) -> Action {
        var lease: LeaseResult?
        if !waited {
            waited = true
            lease = .waited
        }
        guard now + pause < deadline else { return finish(.giveUp(lease: lease)) }
        let action = Action.pause(for: pause, lease: lease)
        pause = min(pause * 2, pollMax)
        state = .pausing
        return action
    }

    /// Won at once, or taken over after waiting for a holder that died or gave up.
    private var leaseTaken: LeaseResult {
        waited ? .takenOver : .won
    }

    private func status(_ result: SharedCacheStatus.Result, ttlRemaining: Duration? = nil) -> SharedCacheStatus {
        SharedCacheStatus(result: result, ttlRemaining: ttlRemaining, collapsed: waited)
    }

    private mutating func finish(_ action: Action) -> Action {
        state = .done
        return action
    }
}
