/// Polls `condition` (yielding between tries, never sleeping) until it holds or `timeout` passes;
/// the timeout only bounds a failing test, nothing is asserted about time.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
