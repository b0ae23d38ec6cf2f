/// The Prometheus type of a family; every series in a family shares it.
enum MetricKind: Equatable, Sendable {
    case counter
    case gauge
    /// Histograms in one family share their bounds, so `le` means the same thing in each series.
    case histogram(upperBounds: [Double])

    /// The word after the family name in `# TYPE`.
    var typeKeyword: String {
        switch self {
        case .counter: "counter"
        case .gauge: "gauge"
        case .histogram: "histogram"
        }
    }
}
