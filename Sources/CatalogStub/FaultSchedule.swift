/// The fault plans scripted at run time (control route or `setFaults`), per route, each for a
/// number of requests or until cleared. A pure value; the stub keeps it under a lock.
///
/// A route's own plan wins over the `all` plan. Setting `all` replaces the routes' own plans, so
/// the latest command always describes what happens next.
struct FaultSchedule: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var plan: FaultPlan
        /// Requests left before the entry is dropped; nil = until cleared.
        var remaining: Int?
    }

    private(set) var entries: [StubRoute: Entry] = [:]

    /// Applies `plan` to the next `times` requests of `route` (every request when nil). A count
    /// of zero or less removes the route's entry.
    mutating func set(_ plan: FaultPlan, for route: StubRoute, times: Int?) {
        if route == .all { entries.removeAll() }
        if let times, times <= 0 {
            entries[route] = nil
            return
        }
        entries[route] = Entry(plan: plan, remaining: times)
    }

    mutating func clear() {
        entries.removeAll()
    }

    /// The plan for one request on `route` (a served route, never `all`), consuming one use of
    /// the entry it comes from; nil when nothing is scripted.
    mutating func take(for route: StubRoute) -> FaultPlan? {
        precondition(route != .all, "a request is on one route")
        let source: StubRoute
        if entries[route] != nil {
            source = route
        } else if entries[.all] != nil {
            source = .all
        } else {
            return nil
        }
        guard var entry = entries[source] else { return nil }
        if let remaining = entry.remaining {
            if remaining <= 1 {
                entries[source] = nil
            } else {
                entry.remaining = remaining - 1
                entries[source] = entry
            }
        }
        return entry.plan
    }
}
