/// What became of a hedge (a second attempt of a slow call); also a metrics label.
package enum HedgeResult: String, Sendable, Equatable, Hashable, CaseIterable {
    /// It went out: the first attempt had not answered within the hedge delay.
    case sent
    /// It answered first; the first attempt was cancelled.
    case won
    /// The first attempt answered first; the hedge was cancelled.
    case lost
    /// It was wanted but not sent: the hedge budget was spent or the breaker was not closed.
    case refused
}
