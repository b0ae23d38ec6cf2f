/// The one place a `Duration` becomes a number: timers, atomics, wire formats, headers and log
/// fields each need an integer in some unit, and each rounding is a decision (a timer must not
/// fire early, a `Retry-After` must not say 0, a stored TTL must not grow), so it is made once
/// here and named, rather than by hand at every site.
///
/// Every integer form is exact: it works on the whole `attoseconds` count, so no intermediate
/// can overflow, and a result beyond its type is clamped to the type's end instead of trapping.
extension Duration {
    /// Whole nanoseconds, truncated toward zero, clamped to `Int64` (about 292 years either way):
    /// the integer form that windows, atomics and wire formats store a duration in.
    package var wholeNanoseconds: Int64 { truncated(toUnitsOf: 1_000_000_000) }

    /// Whole microseconds, truncated toward zero, clamped to `Int64`.
    package var wholeMicroseconds: Int64 { truncated(toUnitsOf: 1_000_000_000_000) }

    /// Whole milliseconds, truncated toward zero (so −1.5 ms is −1), clamped to `Int64`.
    package var wholeMilliseconds: Int64 { truncated(toUnitsOf: 1_000_000_000_000_000) }

    /// Whole seconds, truncated toward zero (so −1.5 s is −1), clamped to `Int64`: what is left
    /// of a duration once the fraction is dropped, as `components.seconds` gives it.
    package var wholeSeconds: Int64 { truncated(toUnitsOf: 1_000_000_000_000_000_000) }

    /// Milliseconds rounded up, so a timer armed with it never fires early; zero for a duration
    /// of zero or less; clamped to `UInt64.max`.
    package var roundedUpMilliseconds: UInt64 {
        guard self > .zero else { return 0 }
        return UInt64(clamping: Self.ceiling(attoseconds, 1_000_000_000_000_000))
    }

    /// Seconds rounded up (toward positive infinity, so −1.5 s is −1), clamped to `Int64`: for a
    /// client told when to come back, which must not come back early.
    package var roundedUpSeconds: Int64 {
        Int64(clamping: Self.ceiling(attoseconds, 1_000_000_000_000_000_000))
    }

    /// The duration in seconds as a `Double` (to the nearest representable value), for jitter
    /// arithmetic and for metrics, whose unit for time is the second.
    package var fractionalSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private func truncated(toUnitsOf attosecondsPerUnit: Int128) -> Int64 {
        Int64(clamping: attoseconds / attosecondsPerUnit)
    }

    private static func ceiling(_ dividend: Int128, _ divisor: Int128) -> Int128 {
        let (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
        return remainder > 0 ? quotient + 1 : quotient
    }
}
