/// A callback waiting on a ``TimeSource``: ``cancel()`` keeps it from running if it has not yet.
package protocol ScheduledAction: Sendable {
    /// Idempotent; an action already running or run is not undone.
    func cancel()
}
