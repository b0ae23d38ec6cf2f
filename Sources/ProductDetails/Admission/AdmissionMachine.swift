/// Which page loads may call their upstreams now: one ``ConcurrencyLimit`` per upstream and one
/// ``AdmissionQueue`` in front of them all (docs/architecture.md, "Overload").
///
/// A load is admitted whole: it takes room at every upstream it needs at once, or waits, or is
/// refused. A page admitted for its product and refused for its reviews would be a degraded page,
/// cached briefly, that costs a load again soon; a page refused at once costs the upstreams
/// nothing and its client can ask again (or another replica). Room is held per attempt: an
/// admitted load's first attempts use the room it was admitted with; a retry or a hedge needs
/// room of its own and an empty queue, so it never goes out while pages wait for the upstream.
///
/// An optional part never holds a page, nor its admission: once its upstream answered a page
/// after the grace (``noteLate(_:at:)``), pages do not wait for room there for
/// ``Policy/lateFor``; their call for that part goes out only if room is free when it starts,
/// else the part is left out, as it would have been when its grace ended.
///
/// A pure value: each event takes the time and returns what the shell must do.
package struct AdmissionMachine: Sendable {
    package struct Policy: Sendable, Equatable {
        package var limit: ConcurrencyLimit.Policy
        package var queue: AdmissionQueue<UInt64>.Policy
        /// How long without a refusal ends a spell of shedding.
        package var quietAfterShedding: Duration
        /// How long after a page answered without an optional part (its grace ended) pages stop
        /// waiting for room at that part's upstream.
        package var lateFor: Duration

        package init(
            limit: ConcurrencyLimit.Policy = .init(), queue: AdmissionQueue<UInt64>.Policy = .init(),
            quietAfterShedding: Duration = .seconds(5), lateFor: Duration = .seconds(2)
        ) {
            self.limit = limit
            self.queue = queue
            self.quietAfterShedding = quietAfterShedding
            self.lateFor = lateFor
        }
    }

    /// What the shell does after an event.
    package struct Actions: Sendable {
        /// Queued loads now admitted, with how long each waited.
        package var admitted: [(ticket: UInt64, waited: Duration)] = []
        package var refused: [(ticket: UInt64, reason: AdmissionRefusal)] = []
        /// Shedding started (`true`) or stopped (`false`) with this event.
        package var shedding: Bool?

        package init() {}
    }

    /// How an arriving load fares.
    package enum Arrival: Sendable, Equatable {
        case admitted
        case queued
        case refused(AdmissionRefusal)
    }

    private struct Waiting {
        let needs: UpstreamSet
        let deadline: Duration
    }

    package let policy: Policy
    private var limits: [ConcurrencyLimit]
    private var queue: AdmissionQueue<UInt64>
    private var waiting: [UInt64: Waiting] = [:]
    private var lastRefusal: Duration?
    /// Per upstream, when its part last came after the grace.
    private var lateAt: [Duration?] = Array(repeating: nil, count: Upstream.allCases.count)

    package init(policy: Policy = Policy()) {
        self.policy = policy
        limits = Array(repeating: ConcurrencyLimit(policy: policy.limit), count: Upstream.allCases.count)
        queue = AdmissionQueue(policy: policy.queue)
    }

    package func limit(of upstream: Upstream) -> ConcurrencyLimit { limits[upstream.index] }
    package var queued: Int { queue.count }
    package var isShedding: Bool { lastRefusal != nil }

    /// A load that needs room at `needs` (those of its upstreams whose breaker lets calls out).
    /// `mayWait`: `false` for a background refresh, admitted only if room is free at once.
    package mutating func arrive(
        _ ticket: UInt64, needs: UpstreamSet, deadline: Duration, mayWait: Bool, at now: Duration, actions: inout Actions
    ) -> Arrival {
        expire(at: now, into: &actions)
        let arrival: Arrival
        if !hasTime(needs, until: deadline, at: now) {
            arrival = .refused(.deadline)
        } else if queue.isEmpty, hasRoom(needs) {
            take(needs, at: now)
            arrival = .admitted
        } else if !mayWait {
            arrival = .refused(.background)
        } else if queue.isFull {
            arrival = .refused(.queueFull)
        } else {
            queue.enqueue(ticket, at: now)
            waiting[ticket] = Waiting(needs: needs, deadline: deadline)
            arrival = .queued
        }
        if case .refused = arrival { noteRefusal(at: now, into: &actions) } else { noteQuiet(at: now, into: &actions) }
        return arrival
    }

    /// A call outside an admission (a retry, a hedge) asks for room at `upstream`: only while no
    /// load waits and the limit has room. On `true` the caller must ``end(_:_:at:actions:)`` it.
    package mutating func tryStart(_ upstream: Upstream, at now: Duration) -> Bool {
        guard queue.isEmpty, limits[upstream.index].hasRoom else { return false }
        limits[upstream.index].start(at: now)
        return true
    }

    /// A call to `upstream` ended (or room taken for it went unused: `.nothing`); admits what
    /// now fits. `callerSaturated`: as ``ConcurrencyLimit/end(_:at:callerSaturated:)``.
    package mutating func end(
        _ upstream: Upstream, _ sample: ConcurrencyLimit.Sample, at now: Duration, callerSaturated: Bool = false, actions: inout Actions
    ) {
        limits[upstream.index].end(sample, at: now, callerSaturated: callerSaturated)
        expire(at: now, into: &actions)
        admitWaiting(at: now, into: &actions)
        noteQuiet(at: now, into: &actions)
    }

    /// A queued load whose caller left; `false` when it was not queued (admitted or refused since).
    package mutating func cancel(_ ticket: UInt64, at now: Duration) -> Bool {
        guard waiting.removeValue(forKey: ticket) != nil else { return false }
        queue.remove(ticket, at: now)
        return true
    }

    /// Refuses the loads that waited as long as they may (the shell's timer, at ``nextExpiry(at:)``).
    package mutating func tick(at now: Duration, actions: inout Actions) {
        expire(at: now, into: &actions)
        admitWaiting(at: now, into: &actions)
        noteQuiet(at: now, into: &actions)
    }

    /// A page was answered without `upstream`'s part: it was still on its way when the grace ended.
    package mutating func noteLate(_ upstream: Upstream, at now: Duration) {
        lateAt[upstream.index] = now
    }

    /// Whether pages wait for room at `upstream` (see ``noteLate(_:at:)``).
    package func isLate(_ upstream: Upstream, at now: Duration) -> Bool {
        guard let late = lateAt[upstream.index] else { return false }
        return now - late < policy.lateFor
    }

    /// When the next queued load's wait runs out, if any waits.
    package func nextExpiry(at now: Duration) -> Duration? { queue.nextExpiry(at: now) }

    /// The least time a call to `upstream` takes when nothing waits, once known.
    package func baseline(of upstream: Upstream) -> Duration? { limits[upstream.index].baseline }

    private func hasRoom(_ needs: UpstreamSet) -> Bool {
        for upstream in Upstream.allCases where needs.contains(upstream) && !limits[upstream.index].hasRoom { return false }
        return true
    }

    private func hasTime(_ needs: UpstreamSet, until deadline: Duration, at now: Duration) -> Bool {
        let left = deadline - now
        for upstream in Upstream.allCases where needs.contains(upstream) {
            if let baseline = limits[upstream.index].baseline, left < baseline { return false }
        }
        return left > .zero
    }

    private mutating func take(_ needs: UpstreamSet, at now: Duration) {
        for upstream in Upstream.allCases where needs.contains(upstream) { limits[upstream.index].start(at: now) }
    }

    private mutating func admitWaiting(at now: Duration, into actions: inout Actions) {
        while let entry = queue.next(at: now), let load = waiting[entry.ticket] {
            if !hasTime(load.needs, until: load.deadline, at: now) {
                queue.takeNext(at: now)
                waiting[entry.ticket] = nil
                actions.refused.append((entry.ticket, .deadline))
                noteRefusal(at: now, into: &actions)
                continue
            }
            guard hasRoom(load.needs) else { return }
            queue.takeNext(at: now)
            waiting[entry.ticket] = nil
            take(load.needs, at: now)
            actions.admitted.append((entry.ticket, now - entry.enqueued))
        }
    }

    private mutating func expire(at now: Duration, into actions: inout Actions) {
        guard !queue.isEmpty else { return }
        let expired = queue.expire(at: now)
        guard !expired.isEmpty else { return }
        for entry in expired {
            waiting[entry.ticket] = nil
            actions.refused.append((entry.ticket, .queueTimeout))
        }
        noteRefusal(at: now, into: &actions)
    }

    private mutating func noteRefusal(at now: Duration, into actions: inout Actions) {
        if lastRefusal == nil { actions.shedding = true }
        lastRefusal = now
    }

    private mutating func noteQuiet(at now: Duration, into actions: inout Actions) {
        guard let lastRefusal, now - lastRefusal >= policy.quietAfterShedding else { return }
        self.lastRefusal = nil
        actions.shedding = false
    }
}

extension Upstream {
    /// Its place in `allCases`, for tables of one entry per upstream.
    var index: Int {
        switch self {
        case .products: 0
        case .reviews: 1
        case .suggestions: 2
        }
    }
}
