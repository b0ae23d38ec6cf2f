extension Duration {
    /// The duration in whole nanoseconds, rounded down: the precision jitter is drawn at.
    var wholeNanoseconds: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}
