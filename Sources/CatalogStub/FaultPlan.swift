/// The faults injected into one answer. The default value injects nothing.
///
/// Faults apply in this order: `latencyMs`, then the slow first call (`slowFirstEvery`), then
/// `hang`, then the `errorRate` draw (an error answer ends the request), then on a `200` body
/// `oversized`, `malformedJSON` and finally `resetMidBody` (so an oversized body can also be cut
/// off).
package struct FaultPlan: Sendable, Equatable {
    /// Delay before answering, in milliseconds.
    package var latencyMs: Int
    /// Share of requests (0…1) answered with `errorStatus` instead of the resource.
    package var errorRate: Double
    package var errorStatus: Int
    /// When set, error answers carry `Retry-After: <seconds>`.
    package var retryAfterSeconds: Int?
    /// Never answer; the handler waits until the client goes away (and counts as abandoned).
    package var hang: Bool
    /// Send the head and half the body, then reset the connection.
    package var resetMidBody: Bool
    /// A valid HTTP answer whose body is truncated JSON.
    package var malformedJSON: Bool
    /// A valid JSON body of at least `oversizedBytes`.
    package var oversized: Bool
    package var oversizedBytes: Int
    /// When N ≥ 1, the first request on the route for every product whose ordinal is a multiple
    /// of N waits `slowFirstMs` more; later requests for it answer at once (see `FirstCalls` for
    /// the ordinal of an id and how long the stub remembers a product). 0 turns it off.
    package var slowFirstEvery: Int
    package var slowFirstMs: Int

    package static let defaultErrorStatus = 503
    package static let defaultOversizedBytes = 4 << 20
    /// Below the service's default attempt time-out (1,000 ms), so that by default a slow first
    /// call is late rather than failed.
    package static let defaultSlowFirstMs = 800

    package init(
        latencyMs: Int = 0,
        errorRate: Double = 0,
        errorStatus: Int = FaultPlan.defaultErrorStatus,
        retryAfterSeconds: Int? = nil,
        hang: Bool = false,
        resetMidBody: Bool = false,
        malformedJSON: Bool = false,
        oversized: Bool = false,
        oversizedBytes: Int = FaultPlan.defaultOversizedBytes,
        slowFirstEvery: Int = 0,
        slowFirstMs: Int = FaultPlan.defaultSlowFirstMs
    ) {
        self.latencyMs = latencyMs
        self.errorRate = errorRate
        self.errorStatus = errorStatus
        self.retryAfterSeconds = retryAfterSeconds
        self.hang = hang
        self.resetMidBody = resetMidBody
        self.malformedJSON = malformedJSON
        self.oversized = oversized
        self.oversizedBytes = oversizedBytes
        self.slowFirstEvery = slowFirstEvery
        self.slowFirstMs = slowFirstMs
    }

    /// True when this plan changes nothing about an answer.
    package var isHarmless: Bool {
        latencyMs == 0 && errorRate == 0 && !hang && !resetMidBody && !malformedJSON && !oversized
            && (slowFirstEvery == 0 || slowFirstMs == 0)
    }
}
