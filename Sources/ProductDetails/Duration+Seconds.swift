extension Duration {
    /// The duration as fractional seconds, for jitter arithmetic and metrics.
    var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
