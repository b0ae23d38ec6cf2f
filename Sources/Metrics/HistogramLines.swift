/// The pre-rendered starts of every line one histogram series writes per scrape.
///
/// A histogram series is many lines (`_bucket` per bound, `+Inf`, `_sum`, `_count`); rendering
/// their names, labels and `le` values once at registration leaves a scrape only the numbers.
struct HistogramLines: Sendable {
    /// `name_bucket{…,le="0.005"} ` per bound, then `le="+Inf"`.
    let bucketPrefixes: [[UInt8]]
    /// `name_sum{…} `
    let sumPrefix: [UInt8]
    /// `name_count{…} `
    let countPrefix: [UInt8]

    init(metricName: String, labels: LabelSet, upperBounds: [Double]) {
        bucketPrefixes = (upperBounds + [.infinity]).map { bound in
            var rendered: [UInt8] = []
            rendered.appendSampleValue(bound)
            return labels.renderedLinePrefix(
                metricName: metricName + "_bucket", extra: (name: "le", value: rendered))
        }
        sumPrefix = labels.renderedLinePrefix(metricName: metricName + "_sum")
        countPrefix = labels.renderedLinePrefix(metricName: metricName + "_count")
    }
}
