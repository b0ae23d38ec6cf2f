/// The validated labels of one series, and their rendering.
///
/// Two label sets with the same pairs in a different order name the same series, so equality
/// and hashing use the pairs sorted by name; the rendering keeps the order the caller gave.
struct LabelSet: Hashable, Sendable {
    struct Label: Hashable, Sendable {
        let name: String
        let value: String
    }

    /// In the caller's order, which is the order they are rendered in.
    let labels: [Label]
    private let identity: [Label]

    init(_ pairs: [(String, String)]) {
        var seen = Set<String>()
        for (name, _) in pairs {
            precondition(PrometheusNames.isValidLabelName(name),
                         "label name \"\(name)\" must match [a-zA-Z_][a-zA-Z0-9_]*")
            precondition(!PrometheusNames.isReservedLabelName(name),
                         "label names starting with __ are reserved: \(name)")
            precondition(seen.insert(name).inserted, "label \"\(name)\" given twice")
        }
        labels = pairs.map { Label(name: $0.0, value: $0.1) }
        identity = labels.sorted { $0.name < $1.name }
    }

    static func == (lhs: LabelSet, rhs: LabelSet) -> Bool {
        lhs.identity == rhs.identity
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }

    func contains(labelNamed name: String) -> Bool {
        labels.contains { $0.name == name }
    }

    /// The start of a sample line: `name{a="x",b="y"} `, or `name ` without labels; an `extra`
    /// label (a histogram's `le`) goes last, its value already rendered.
    func renderedLinePrefix(metricName: String, extra: (name: String, value: [UInt8])? = nil)
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        bytes.appendText(metricName)
        if !labels.isEmpty || extra != nil {
            bytes.append(UInt8(ascii: "{"))
            for (index, label) in labels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.appendText(label.name)
                bytes.appendText("=\"")
                bytes.appendEscapedLabelValue(label.value)
                bytes.append(UInt8(ascii: "\""))
            }
            if let extra {
                if !labels.isEmpty { bytes.append(UInt8(ascii: ",")) }
                bytes.appendText(extra.name)
                bytes.appendText("=\"")
                bytes.append(contentsOf: extra.value)
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: " "))
        return bytes
    }
}
