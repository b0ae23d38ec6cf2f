/// All series sharing one metric name: one `# HELP`/`# TYPE` block with its samples beneath.
///
/// Series keep registration order, so consecutive scrapes list them identically and diffs of
/// the exposition stay readable.
struct MetricFamily: Sendable {
    let name: String
    let kind: MetricKind
    /// `# HELP …\n# TYPE …\n`, rendered when the family is created.
    private let header: [UInt8]
    private(set) var series: [MetricSeries] = []
    private var seriesIndexByLabels: [LabelSet: Int] = [:]

    init(name: String, help: String, kind: MetricKind) {
        self.name = name
        self.kind = kind
        var header: [UInt8] = []
        header.appendText("# HELP \(name) ")
        header.appendEscapedHelp(help)
        header.appendText("\n# TYPE \(name) \(kind.typeKeyword)\n")
        self.header = header
    }

    /// The series with these labels, added from `makeSeries` if there is none yet.
    mutating func existingOrAdd(labels: LabelSet, _ makeSeries: () -> MetricSeries)
        -> MetricSeries
    {
        if let index = seriesIndexByLabels[labels] {
            return series[index]
        }
        let added = makeSeries()
        seriesIndexByLabels[labels] = series.count
        series.append(added)
        return added
    }

    /// Stores `newSeries` under `labels`, replacing (in place, keeping its position) any series
    /// already there; returns the replaced one so the caller can check it was compatible.
    @discardableResult
    mutating func addOrReplace(labels: LabelSet, with newSeries: MetricSeries) -> MetricSeries? {
        if let index = seriesIndexByLabels[labels] {
            let replaced = series[index]
            series[index] = newSeries
            return replaced
        }
        seriesIndexByLabels[labels] = series.count
        series.append(newSeries)
        return nil
    }

    func appendExposition(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: header)
        for each in series {
            each.appendSamples(to: &buffer)
        }
    }
}

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
