/// An object that a ``TimeSource`` timer calls back (``TimeSource/schedule(after:target:)``).
///
/// A race or a wait that is an object already is its own callback: arming its timer then
/// allocates no closure capturing it.
package protocol TimerTarget: AnyObject, Sendable {
    /// Runs on whatever thread the source fires on, so it only hands work on.
    func timerFired()
}
