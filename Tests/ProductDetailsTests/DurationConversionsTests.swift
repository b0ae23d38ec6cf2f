import Testing
import Timekeeping

/// Pins each conversion's rounding where it shows: below zero, at zero, under one unit, exactly
/// one unit, and past the end of the result type.
struct DurationConversionsTests {
    /// Beyond `Int64.max` nanoseconds, milliseconds and seconds alike (a `Duration` holds more).
    static let huge = Duration.seconds(Int64.max) + .seconds(Int64.max)

    @Test func wholeUnitsTruncateTowardZero() {
        #expect(Duration.nanoseconds(-1).wholeNanoseconds == -1)
        #expect((Duration.nanoseconds(-1) / 2).wholeNanoseconds == 0)
        #expect(Duration.zero.wholeNanoseconds == 0)
        #expect(Duration.nanoseconds(1).wholeNanoseconds == 1)
        #expect((Duration.nanoseconds(3) / 2).wholeNanoseconds == 1)

        #expect(Duration.nanoseconds(-1_500).wholeMicroseconds == -1)
        #expect(Duration.nanoseconds(999).wholeMicroseconds == 0)
        #expect(Duration.microseconds(1).wholeMicroseconds == 1)
        #expect(Duration.nanoseconds(1_999).wholeMicroseconds == 1)

        #expect(Duration.microseconds(-1_500).wholeMilliseconds == -1)
        #expect(Duration.microseconds(-999).wholeMilliseconds == 0)
        #expect(Duration.zero.wholeMilliseconds == 0)
        #expect(Duration.microseconds(999).wholeMilliseconds == 0)
        #expect(Duration.milliseconds(1).wholeMilliseconds == 1)
        #expect(Duration.seconds(2.5).wholeMilliseconds == 2_500)

        #expect(Duration.milliseconds(-1_500).wholeSeconds == -1)
        #expect(Duration.milliseconds(-999).wholeSeconds == 0)
        #expect(Duration.milliseconds(999).wholeSeconds == 0)
        #expect(Duration.seconds(1).wholeSeconds == 1)
        #expect(Duration.milliseconds(1_999).wholeSeconds == 1)
    }

    @Test func wholeUnitsClampInsteadOfOverflowing() {
        #expect(Duration.seconds(Int64.max).wholeNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeNanoseconds == .min)
        #expect(Duration.seconds(Int64.max).wholeMicroseconds == .max)
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
        #expect(Duration.seconds(Int64.max).wholeSeconds == .max)
        #expect(Self.huge.wholeSeconds == .max)
        #expect((.zero - Self.huge).wholeSeconds == .min)
        // The last value that fits is kept exactly.
        #expect(Duration.nanoseconds(Int64.max).wholeNanoseconds == .max)
        #expect(Duration.nanoseconds(Int64.max - 1).wholeNanoseconds == .max - 1)
    }

    @Test func roundedUpMillisecondsNeverUndershootAndStopAtZero() {
        #expect(Duration.seconds(-5).roundedUpMilliseconds == 0)
        #expect(Duration.nanoseconds(-1).roundedUpMilliseconds == 0)
        #expect(Duration.zero.roundedUpMilliseconds == 0)
        #expect(Duration.nanoseconds(1).roundedUpMilliseconds == 1)
        #expect((Duration.nanoseconds(1) / 1_000_000).roundedUpMilliseconds == 1)
        #expect(Duration.milliseconds(1).roundedUpMilliseconds == 1)
        #expect((Duration.milliseconds(1) + .nanoseconds(1)).roundedUpMilliseconds == 2)
        #expect(Duration.seconds(3).roundedUpMilliseconds == 3_000)
        #expect(Self.huge.roundedUpMilliseconds == .max)
    }

    @Test func roundedUpSecondsIsTheCeiling() {
        #expect(Duration.milliseconds(-1_500).roundedUpSeconds == -1)
        #expect(Duration.milliseconds(-999).roundedUpSeconds == 0)
        #expect(Duration.zero.roundedUpSeconds == 0)
        #expect(Duration.nanoseconds(1).roundedUpSeconds == 1)
        #expect(Duration.seconds(1).roundedUpSeconds == 1)
        #expect((Duration.seconds(1) + .nanoseconds(1)).roundedUpSeconds == 2)
        #expect(Self.huge.roundedUpSeconds == .max)
        #expect((.zero - Self.huge).roundedUpSeconds == .min)
    }

    @Test func fractionalSecondsKeepsTheSignAndTheFraction() {
        #expect(Duration.milliseconds(-1_500).fractionalSeconds == -1.5)
        #expect(Duration.zero.fractionalSeconds == 0)
        #expect(Duration.milliseconds(250).fractionalSeconds == 0.25)
        #expect(Duration.milliseconds(100).fractionalSeconds == 0.1)
        #expect(Duration.seconds(3).fractionalSeconds == 3)
        #expect(Duration.nanoseconds(1).fractionalSeconds == 1e-9)
    }
}
