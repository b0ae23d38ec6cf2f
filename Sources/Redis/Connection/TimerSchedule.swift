/// The one timer a connection asks its shell for, remembered so a change is requested only
/// when the wanted instant differs from the armed one.
struct TimerSchedule: Sendable {
    enum Change: Sendable, Equatable {
        case arm(Duration)
        case cancel
    }

    private(set) var armedAt: Duration?

    /// What to ask of the shell so the timer fires at `wanted` (or never, for `nil`).
    mutating func change(to wanted: Duration?) -> Change? {
        guard wanted != armedAt else { return nil }
        armedAt = wanted
        return wanted.map(Change.arm) ?? .cancel
    }

    /// After the timer fired, the shell holds no armed timer any more.
    mutating func fired() {
        armedAt = nil
    }
}
