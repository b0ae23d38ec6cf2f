/// The request a load was started for, told of the upstream work that load does, for its log
/// line. Carried in the load's ``LoadContext``, so only the starting request hears of it: one
/// that joined a running load gets its answer, not its work. Told on the load's tasks, never
/// under a lock: cheap and non-blocking, as the service's events.
package protocol LoadObserver: AnyObject, Sendable {
    /// This request started a load (three upstream calls, or fewer if the shared cache answers).
    func loadStarted()
    /// One of its load's upstream calls is about to be retried.
    func retried()
    /// Its load was refused room at the upstreams (``LoadAdmission``): it called none of them.
    func loadShed()
}
