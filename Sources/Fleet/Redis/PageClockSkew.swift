/// A shared page whose age, by the reading replica's clock, fell out of its bounds by more than
/// ``tolerance``: the replicas' clocks disagree (``RedisPageStore`` clamps the age, and says so).
package enum PageClockSkew: String, CaseIterable, Sendable {
    /// Stored in this clock's future: the storer's clock is ahead of this one.
    case storedInFuture = "stored_in_future"
    /// Older than its lifetime while Redis still held it: this clock is ahead of the storer's.
    case pastLifetime = "past_lifetime"

    /// How far clocks may disagree before it counts: NTP keeps them within milliseconds, and a
    /// page read a moment after another replica stored it may look a little younger than zero.
    static let tolerance = Duration.seconds(1)
}
