/// Polls `condition` (yielding between tries, never sleeping) until it holds or `timeout` passes;
/// the timeout only bounds a failing test, nothing is asserted about time.
public func eventually(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        await Task.yield()
    }
    return try condition()
}

/// Polls an asynchronous `condition` the same way (for conditions that need a request).
public func eventuallyAsync(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        await Task.yield()
    }
    return try await condition()
}
