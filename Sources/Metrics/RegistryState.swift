/// The families of a registry, in registration order; guarded by the registry's mutex.
///
/// Only registration mutates it. A scrape copies `families` (copy-on-write, so the copy is a
/// retain) and renders outside the lock, which keeps read-gauge closures from running under it.
struct RegistryState: Sendable {
    private(set) var families: [MetricFamily] = []
    private var familyIndexByName: [String: Int] = [:]

    /// The series `name` + `labels`, created by `makeSeries` (and its family with `help`) if
    /// missing. A name already registered with another type is a programming error.
    mutating func existingOrAdd(
        name: String, help: String, kind: MetricKind, labels: LabelSet,
        _ makeSeries: () -> MetricSeries
    ) -> MetricSeries {
        let index = familyIndex(name: name, help: help, kind: kind)
        return families[index].existingOrAdd(labels: labels, makeSeries)
    }

    /// Stores `series` under `name` + `labels`, replacing any earlier one; returns that one.
    mutating func addOrReplace(
        name: String, help: String, kind: MetricKind, labels: LabelSet, with series: MetricSeries
    ) -> MetricSeries? {
        let index = familyIndex(name: name, help: help, kind: kind)
        return families[index].addOrReplace(labels: labels, with: series)
    }

    /// The family's position, creating it if needed. The first registration's help text wins.
    private mutating func familyIndex(name: String, help: String, kind: MetricKind) -> Int {
        if let index = familyIndexByName[name] {
            let existing = families[index].kind
            precondition(existing == kind,
                         "metric \(name) is already registered as \(existing), not \(kind)")
            return index
        }
        familyIndexByName[name] = families.count
        families.append(MetricFamily(name: name, help: help, kind: kind))
        return families.count - 1
    }
}
