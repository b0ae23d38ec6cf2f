import ProductDetails
/// What the shared-cache phase of a load decided.
enum SharedPhase: Sendable {
    /// The page came from the shared cache (fresh, or stale while another replica refreshes it).
    case answered(LoadedDocument)
    /// Load from the upstreams: for the fleet when `claim` is set, else for this replica alone.
    case load(claim: SharedClaim?, status: SharedCacheStatus)
}

extension FleetLoads {
    /// A request's own first look at the shared cache, before it joins or starts a load: a
    /// shared-cache hit is answered by the request itself, with no load task, no in-flight entry
    /// and no lease. `nil` when this replica already loads `id` (the request joins that load, which
    /// looked), or has not read the fleet's invalidation log (nothing shared can be vouched for).
    package func begin(id: String, in service: ProductDetailsService) async -> (any BegunLoad)? {
        guard let look = startLook(id: id, in: service) else { return nil }
        return begun(look, after: await shared.peek(id: id, deadline: look.readDeadline), in: service)
    }

    /// The look ``begin(id:in:)`` takes for `pending`, without a task:
    /// `completion` runs on the caller's loop with what the look ends in
    /// (``lookup(after:_:)``), perhaps before this returns. Returns what cancels the look, or
    /// `nil` when there is no look to take or the store cannot take it from this thread
    /// (`completion` then never runs). One ``SharedFirstLook`` carries it to the store's reply.
    package func firstLook(
        _ pending: PendingDetail, in service: ProductDetailsService, completion: @escaping @Sendable (DetailLookup) -> Void
    ) -> (() -> Void)? {
        guard !pending.noCache, pending.begun == nil else { return nil }
        if case .stale(_, _, revalidate: true, _)? = pending.cached { return nil }
        guard let look = startLook(id: pending.id, in: service) else { return nil }
        guard let admission = shared.admit(deadline: look.readDeadline, now: look.startedAt) else {
            completion(lookup(after: begun(look, after: .failed, in: service), pending, in: service))
            return {}
        }
        let firstLook = SharedFirstLook(service: service, loads: self, look: look, admission: admission, pending: pending, completion: completion)
        // The closure holds the one object and nothing else, so it needs no context of its own.
        guard let cancel = shared.store.peek(id: pending.id, deadline: look.readDeadline, completion: { [firstLook] result in
            firstLook.peeked(result)
        }) else {
            shared.abandonPeek()
            return nil
        }
        return cancel
    }

    /// What a request's first look ends in: the answer of a fresh page, or else the request,
    /// pending with the look for the load to carry on from.
    func lookup(after begun: BegunSharedPhase, _ pending: PendingDetail, in service: ProductDetailsService) -> DetailLookup {
        if let answer = begun.freshAnswer(counting: service.events) { return .answered(answer) }
        var pending = pending
        pending.begun = begun
        return .pending(pending)
    }

    /// A first look about to be taken.
    struct Look: Sendable {
        let id: String
        let machine: SharedLookupMachine
        let readDeadline: Duration
        let token: LoadToken
        let stamp: UInt64
        let deadline: Duration
        /// When the look started, on the service's time line.
        let startedAt: Duration
    }

    private func startLook(id: String, in service: ProductDetailsService) -> Look? {
        guard !service.isLoading(id), let stamp = shared.stamp else { return nil }
        let token = service.loadToken(for: id)
        let now = service.time.now
        let deadline = now + service.settings.requestDeadline
        var machine = SharedLookupMachine(settings: shared.settings, deadline: deadline)
        guard case .read(let readDeadline) = machine.start(now: now) else { return nil }
        return Look(id: id, machine: machine, readDeadline: readDeadline, token: token, stamp: stamp, deadline: deadline, startedAt: now)
    }

    func begun(_ look: Look, after peek: SharedPeek, in service: ProductDetailsService) -> BegunSharedPhase {
        let time = service.time
        var machine = look.machine
        let next: SharedLookupMachine.Action
        var peeked = false
        switch peek {
        case .found(let read):
            let answered = time.now
            next = machine.readAnswered(keptLocally(read, id: look.id, token: look.token, in: service), now: answered)
        case .unknown:
            next = .read(deadline: look.readDeadline)
            peeked = true
        case .failed:
            next = machine.readFailed(now: time.now)
        }
        return BegunSharedPhase(machine: machine, next: next, peeked: peeked, token: look.token, stamp: look.stamp, deadline: look.deadline)
    }

    /// Looks in the shared cache before a load goes upstream, inside the in-flight load, so a
    /// replica asks once per product however many of its clients wait (carrying on from
    /// `begun`, the look of the request that started the load). The rules are
    /// ``SharedLookupMachine``'s; this does what it says, on the service's time line.
    func sharedPhase(_ context: LoadContext, begun: BegunSharedPhase? = nil, in service: ProductDetailsService) async throws -> SharedPhase {
        let id = context.id
        let time = service.time
        var machine: SharedLookupMachine
        var action: SharedLookupMachine.Action
        var peeked = false
        if let begun {
            (machine, action, peeked) = (begun.machine, begun.next, begun.peeked)
        } else {
            machine = SharedLookupMachine(settings: shared.settings, deadline: context.deadline)
            action = machine.start(now: time.now)
        }
        while true {
            switch action {
            case .read(let deadline):
                if let read = await shared.read(id: id, deadline: deadline, peeked: peeked) {
                    let answered = time.now
                    action = machine.readAnswered(keptLocally(read, id: id, token: context.token, in: service), now: answered)
                } else {
                    action = machine.readFailed(now: time.now)
                }
                peeked = false
            case .claim(let generation, let deadline):
                let claim = await shared.claim(id: id, generation: generation, deadline: deadline)
                action = machine.claimAnswered(claim, now: time.now)
            case .pause(let pause, let lease):
                if let lease { shared.events.lease(lease) }
                try await time.sleep(for: pause)
                action = machine.pauseEnded(now: time.now)
            case .answerFresh(let document, let remaining, let status):
                return .answered(LoadedDocument(document: document, storedFor: remaining, shared: status))
            case .answerStale(let document, let staleness, let status, let refresh, let lease):
                if let lease { shared.events.lease(lease) }
                if let refresh {
                    // As with a stale L1 page: refreshed without waiters, on a deadline of its own.
                    let context = LoadContext(
                        id: id, requestID: context.requestID, trace: context.trace, observer: context.observer, token: context.token,
                        stamp: context.stamp,
                        deadline: time.now + service.settings.requestDeadline, executor: context.executor)
                    Task(executorPreference: context.executor) {
                        _ = try? await self.loadUnderLease(context, claim: refresh, status: SharedCacheStatus(result: .stale), in: service)
                    }
                }
                return .answered(LoadedDocument(document: document, storedFor: nil, staleAge: staleness, shared: status))
            case .load(let claim, let status, let lease):
                if let lease { shared.events.lease(lease) }
                return .load(claim: claim, status: status)
            case .giveUp(let lease):
                if let lease { shared.events.lease(lease) }
                throw ProductDetailsError.sharedLoadTimedOut
            }
        }
    }

    /// `read` as kept in L1: a page stored with its gzip variant keeps it, one stored without (by
    /// a replica that does not compress) is compressed here, once.
    private func keptLocally(_ read: SharedRead, id: String, token: LoadToken, in service: ProductDetailsService) -> SharedRead {
        guard case .page(let page, let age, let generation) = read else { return read }
        let local = SharedPage(
            document: service.compressed(page.document), ttl: page.ttl, staleIfError: page.staleIfError,
            staleWhileRevalidate: page.staleWhileRevalidate, stamp: page.stamp)
        service.keepLocally(local, age: age, id: id, token: token)
        return .page(local, age: age, generation: generation)
    }
}
