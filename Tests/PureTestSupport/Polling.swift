/// How ``eventually(_:_:sourceLocation:_:)`` waits between two looks at its condition.
package enum Polling: Sendable {
    /// Yields to other tasks between looks and gives up after `tries` looks. It reads no clock,
    /// so it is the one the unit level (scripts/check-clockless-tests.sh) may use: what it waits
    /// for there are tasks of this process, which a yield lets run.
    case yielding(tries: Int)

    /// Sleeps `interval` between looks and gives up once `limit` has passed on the wall clock:
    /// for what happens on other threads, in other processes or across sockets, which takes real
    /// time that spinning on yields would only take away from it.
    case sleeping(every: Duration, within: Duration)

    /// The unit level's: more yields than any chain of tasks in a test needs.
    package static let clockless = Polling.yielding(tries: 2_000_000)

    /// The live level's: a look every 10 ms, soon enough for a test's next step and rare enough
    /// that a hundred live tests waiting at once add little to a loaded host; 30 s only bounds
    /// a failing test.
    package static let live = Polling.sleeping(every: .milliseconds(10), within: .seconds(30))
}
