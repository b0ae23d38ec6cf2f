import Testing

/// Looks at `condition` until it holds, waiting between looks as `polling` says (by default
/// without a clock, as the unit level must), and returns whether it held.
///
/// When it never holds, this records an issue saying what was awaited (`comment`), so a caller
/// need not check the result; it is returned for callers that report more themselves.
@discardableResult
package func eventually(
    _ polling: Polling = .clockless,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    switch polling {
    case .yielding(let tries):
        for _ in 0..<tries {
            if try await condition() { return true }
            await Task.yield()
        }
    case .sleeping(let interval, let limit):
        let clock = ContinuousClock()
        let end = clock.now + limit
        while clock.now < end, !Task.isCancelled {
            if try await condition() { return true }
            try? await Task.sleep(for: interval)
        }
    }
    if try await condition() { return true }
    Issue.record("never held: \(comment?.rawValue ?? "the condition")", sourceLocation: sourceLocation)
    return false
}
