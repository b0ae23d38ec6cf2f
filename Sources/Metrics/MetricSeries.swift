/// One series of a family: where its numbers live, and its sample lines pre-rendered.
enum MetricSeries: Sendable {
    case counter(Counter, linePrefix: [UInt8])
    case gauge(Gauge, linePrefix: [UInt8])
    /// Read at scrape time, for values another component already owns (cache size).
    case readGauge(@Sendable () -> Double, linePrefix: [UInt8])
    /// A monotonic count another component already keeps (connections opened), read at scrape.
    case readCounter(@Sendable () -> Int, linePrefix: [UInt8])
    /// A monotonic amount that is not a whole number (CPU seconds), read at scrape.
    case readAmountCounter(@Sendable () -> Double, linePrefix: [UInt8])
    case histogram(Histogram, lines: HistogramLines)

    /// Appends this series' sample lines; only the numbers are formatted here.
    func appendSamples(to buffer: inout [UInt8]) {
        switch self {
        case .counter(let counter, let linePrefix):
            buffer.append(contentsOf: linePrefix)
            buffer.appendInteger(counter.value)
            buffer.append(UInt8(ascii: "\n"))
        case .gauge(let gauge, let linePrefix):
            buffer.append(contentsOf: linePrefix)
            buffer.appendSampleValue(gauge.value)
            buffer.append(UInt8(ascii: "\n"))
        case .readGauge(let read, let linePrefix):
            buffer.append(contentsOf: linePrefix)
            buffer.appendSampleValue(read())
            buffer.append(UInt8(ascii: "\n"))
        case .readCounter(let read, let linePrefix):
            buffer.append(contentsOf: linePrefix)
            buffer.appendInteger(read())
            buffer.append(UInt8(ascii: "\n"))
        case .readAmountCounter(let read, let linePrefix):
            buffer.append(contentsOf: linePrefix)
            buffer.appendSampleValue(read())
            buffer.append(UInt8(ascii: "\n"))
        case .histogram(let histogram, let lines):
            var bucket = 0
            var total = 0
            let sum = histogram.forEachCumulativeCount { cumulative in
                buffer.append(contentsOf: lines.bucketPrefixes[bucket])
                buffer.appendInteger(cumulative)
                buffer.append(UInt8(ascii: "\n"))
                bucket += 1
                total = cumulative
            }
            buffer.append(contentsOf: lines.sumPrefix)
            buffer.appendSampleValue(sum)
            buffer.append(UInt8(ascii: "\n"))
            buffer.append(contentsOf: lines.countPrefix)
            buffer.appendInteger(total)
            buffer.append(UInt8(ascii: "\n"))
        }
    }
}
