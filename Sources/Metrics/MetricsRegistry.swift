import Locking
import Synchronization

/// The metrics of one process, and their Prometheus text exposition (format 0.0.4).
///
/// Design, after swift-prometheus: registering a metric renders its family header
/// (`# HELP`/`# TYPE`) and the start of each sample line (name and escaped labels) to bytes
/// once. The returned ``Counter``, ``Gauge`` and ``Histogram`` hold nothing but atomics, so
/// recording takes no lock and allocates nothing. A scrape copies the family list under a
/// mutex, then, outside it, appends header bytes, line prefixes and freshly formatted numbers
/// into a single `[UInt8]`.
///
/// Registering is idempotent: the same name and labels return the same instance, so
/// components may look their metrics up rather than pass them around. The same name with
/// other labels is another series of the same family. Invalid names, a counter not ending in
/// `_total`, and one name used with two types are programming errors and stop the process.
package final class MetricsRegistry: Sendable {
    /// The `Content-Type` of ``render()``'s output.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Prepended to every metric name, e.g. `product_details_`.
    package let prefix: String

    private let state = Locked(RegistryState())

    /// The previous scrape's size, so the next buffer is allocated once at the right size.
    private let lastExpositionByteCount = Atomic<Int>(0)

    /// - Parameter prefix: prepended to every name; the whole name must still be valid.
    package init(prefix: String = "") {
        self.prefix = prefix
    }

    /// The counter `prefix + name` with `labels`; `name` must end in `_total`.
    package func counter(_ name: String, help: String, labels: [(String, String)] = []) -> Counter {
        let fullName = validatedName(name)
        precondition(fullName.hasSuffix("_total"), "counter \(fullName) must end in _total")
        let labelSet = LabelSet(labels)
        let series = state.withLock { state in
            state.existingOrAdd(name: fullName, help: help, kind: .counter, labels: labelSet) {
                .counter(Counter(), linePrefix: labelSet.renderedLinePrefix(metricName: fullName))
            }
        }
        guard case .counter(let counter, _) = series else {
            preconditionFailure("counter family \(fullName) holds a non-counter series")
        }
        return counter
    }

    /// The gauge `prefix + name` with `labels`.
    package func gauge(_ name: String, help: String, labels: [(String, String)] = []) -> Gauge {
        let fullName = validatedName(name)
        let labelSet = LabelSet(labels)
        let series = state.withLock { state in
            state.existingOrAdd(name: fullName, help: help, kind: .gauge, labels: labelSet) {
                .gauge(Gauge(), linePrefix: labelSet.renderedLinePrefix(metricName: fullName))
            }
        }
        guard case .gauge(let gauge, _) = series else {
            preconditionFailure("\(fullName) \(labels) is already a read-at-scrape gauge")
        }
        return gauge
    }

    /// A counter whose value `read` returns at scrape time, for a monotonic count another
    /// component already keeps with its own atomics. `read` must never decrease.
    package func counter(
        _ name: String, help: String, labels: [(String, String)] = [],
        read: @escaping @Sendable () -> Int
    ) {
        addReadCounter(name, help: help, labels: labels) { MetricSeries.readCounter(read, linePrefix: $0) }
    }

    /// A counter of an amount that need not be whole (CPU seconds), read at scrape time. `read`
    /// must never decrease.
    package func counter(
        _ name: String, help: String, labels: [(String, String)] = [],
        readAmount read: @escaping @Sendable () -> Double
    ) {
        addReadCounter(name, help: help, labels: labels) { MetricSeries.readAmountCounter(read, linePrefix: $0) }
    }

    /// Registers a read-at-scrape counter series made from its rendered line prefix.
    private func addReadCounter(
        _ name: String, help: String, labels: [(String, String)], series make: ([UInt8]) -> MetricSeries
    ) {
        let fullName = validatedName(name)
        precondition(fullName.hasSuffix("_total"), "counter \(fullName) must end in _total")
        let labelSet = LabelSet(labels)
        let series = make(labelSet.renderedLinePrefix(metricName: fullName))
        let replaced = state.withLock { state in
            state.addOrReplace(name: fullName, help: help, kind: .counter, labels: labelSet, with: series)
        }
        if let replaced, case .counter = replaced {
            preconditionFailure("\(fullName) \(labels) is already a stored counter")
        }
    }

    /// A gauge whose value `read` returns at scrape time, for numbers another component
    /// already keeps (cache entries), so they are not mirrored into an atomic on every change.
    ///
    /// `read` runs on the scraping task, outside the registry's lock; it must be quick and
    /// must not block. Registering the same name and labels again replaces the closure, so a
    /// component rebuilt in the same process reports its live state, not a dead one's.
    package func gauge(
        _ name: String, help: String, labels: [(String, String)] = [],
        read: @escaping @Sendable () -> Double
    ) {
        let fullName = validatedName(name)
        let labelSet = LabelSet(labels)
        let series = MetricSeries.readGauge(
            read, linePrefix: labelSet.renderedLinePrefix(metricName: fullName))
        let replaced = state.withLock { state in
            state.addOrReplace(
                name: fullName, help: help, kind: .gauge, labels: labelSet, with: series)
        }
        if let replaced, case .gauge = replaced {
            preconditionFailure("\(fullName) \(labels) is already a stored gauge")
        }
    }

    /// The histogram `prefix + name` with `labels`, counting into `buckets`.
    ///
    /// - Parameter buckets: finite, strictly increasing upper bounds, the same for every series
    ///   of the family; a trailing `+Inf` is accepted and implied anyway.
    package func histogram(
        _ name: String, help: String, labels: [(String, String)] = [], buckets: [Double]
    ) -> Histogram {
        let fullName = validatedName(name)
        let labelSet = LabelSet(labels)
        precondition(!labelSet.contains(labelNamed: "le"), "histogram \(fullName) may not use label le")
        let upperBounds = Self.validatedUpperBounds(buckets, for: fullName)
        let series = state.withLock { state in
            state.existingOrAdd(
                name: fullName, help: help, kind: .histogram(upperBounds: upperBounds),
                labels: labelSet
            ) {
                .histogram(
                    Histogram(upperBounds: upperBounds),
                    lines: HistogramLines(
                        metricName: fullName, labels: labelSet, upperBounds: upperBounds))
            }
        }
        guard case .histogram(let histogram, _) = series else {
            preconditionFailure("histogram family \(fullName) holds a non-histogram series")
        }
        return histogram
    }

    /// The exposition of every metric, families in registration order.
    package func render() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(lastExpositionByteCount.load(ordering: .relaxed) + 256)
        render(into: &buffer)
        lastExpositionByteCount.store(buffer.count, ordering: .relaxed)
        return buffer
    }

    /// Appends the exposition to `buffer`, for a server that assembles its response in place.
    package func render(into buffer: inout [UInt8]) {
        let families = state.withLock { $0.families }
        for family in families {
            family.appendExposition(to: &buffer)
        }
    }

    private func validatedName(_ name: String) -> String {
        let fullName = prefix + name
        precondition(PrometheusNames.isValidMetricName(fullName),
                     "metric name \"\(fullName)\" must match [a-zA-Z_:][a-zA-Z0-9_:]*")
        return fullName
    }

    private static func validatedUpperBounds(_ buckets: [Double], for name: String) -> [Double] {
        var bounds = buckets
        if bounds.last == .infinity { bounds.removeLast() }
        for (index, bound) in bounds.enumerated() {
            precondition(bound.isFinite, "histogram \(name): bucket bound \(bound) is not finite")
            precondition(index == 0 || bounds[index - 1] < bound,
                         "histogram \(name): buckets must be strictly increasing")
        }
        return bounds
    }
}
