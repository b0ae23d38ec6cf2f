/// A small, strict reader of the Prometheus text format, so tests can check structure rather
/// than only compare strings: every sample belongs to a declared family, each family is
/// declared once with HELP and TYPE, and histograms are cumulative with `+Inf == _count`.
struct ExpositionParser {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double

        static func == (lhs: Sample, rhs: Sample) -> Bool {
            lhs.name == rhs.name && lhs.labels == rhs.labels
                && (lhs.value == rhs.value || (lhs.value.isNaN && rhs.value.isNaN))
        }
    }

    struct Family {
        var name: String
        var help: String
        var type: String
        var samples: [Sample] = []
    }

    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    /// Parses `text` and checks the rules; throws on the first violation.
    static func parse(_ text: String) throws -> [Family] {
        var families: [Family] = []
        var declaredNames = Set<String>()
        var seenSeries = Set<String>()
        guard text.isEmpty || text.hasSuffix("\n") else {
            throw Failure(line: 0, reason: "exposition must end with a newline")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        var pendingHelp: (name: String, text: String)?

        for (offset, rawLine) in lines.enumerated() {
            let number = offset + 1
            let line = String(rawLine)
            func fail(_ reason: String) -> Failure { Failure(line: number, reason: reason) }

            if line.hasPrefix("# HELP ") {
                guard pendingHelp == nil else { throw fail("HELP not followed by TYPE") }
                let rest = line.dropFirst("# HELP ".count)
                guard let space = rest.firstIndex(of: " ") else { throw fail("HELP without text") }
                let name = String(rest[..<space])
                guard isMetricName(name) else { throw fail("bad family name \(name)") }
                guard declaredNames.insert(name).inserted else {
                    throw fail("family \(name) declared twice")
                }
                pendingHelp = (name, try unescapeHelp(rest[rest.index(after: space)...], fail))
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst("# TYPE ".count).split(separator: " ")
                guard parts.count == 2, let help = pendingHelp, help.name == parts[0] else {
                    throw fail("TYPE must follow the HELP of the same family")
                }
                let type = String(parts[1])
                guard ["counter", "gauge", "histogram"].contains(type) else {
                    throw fail("unknown type \(type)")
                }
                families.append(Family(name: help.name, help: help.text, type: type))
                pendingHelp = nil
            } else if line.hasPrefix("#") || line.isEmpty {
                throw fail("unexpected line \"\(line)\"")
            } else {
                guard pendingHelp == nil, let family = families.last else {
                    throw fail("sample outside a declared family")
                }
                let sample = try parseSample(line, fail)
                guard sampleNames(for: family).contains(sample.name) else {
                    throw fail("sample \(sample.name) does not belong to family \(family.name)")
                }
                let seriesKey = sample.name + "|" + sample.labels.sorted { $0.key < $1.key }
                    .map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                guard seenSeries.insert(seriesKey).inserted else {
                    throw fail("series \(seriesKey) appears twice")
                }
                families[families.count - 1].samples.append(sample)
            }
        }
        if pendingHelp != nil { throw Failure(line: lines.count, reason: "HELP without TYPE") }
        for family in families {
            if family.samples.isEmpty {
                throw Failure(line: 0, reason: "family \(family.name) has no samples")
            }
            if family.type == "histogram" { try checkHistogram(family) }
        }
        return families
    }

    private static func sampleNames(for family: Family) -> Set<String> {
        family.type == "histogram"
            ? [family.name + "_bucket", family.name + "_sum", family.name + "_count"]
            : [family.name]
    }

    /// Buckets per series: `le` increasing, counts non-decreasing, last `+Inf` equal to `_count`.
    private static func checkHistogram(_ family: Family) throws {
        func fail(_ reason: String) -> Failure {
            Failure(line: 0, reason: "histogram \(family.name): \(reason)")
        }
        let seriesLabels = Set(family.samples.map { sample in
            sample.labels.filter { $0.key != "le" }
        })
        for labels in seriesLabels {
            let mine = family.samples.filter { $0.labels.filter { $0.key != "le" } == labels }
            let buckets = mine.filter { $0.name == family.name + "_bucket" }
            guard let count = mine.first(where: { $0.name == family.name + "_count" }),
                mine.contains(where: { $0.name == family.name + "_sum" })
            else { throw fail("series \(labels) lacks _sum or _count") }
            var previousBound = -Double.infinity
            var previousCount = 0.0
            for bucket in buckets {
                guard let le = bucket.labels["le"], let bound = parseValue(le) else {
                    throw fail("bucket without a numeric le")
                }
                guard bound > previousBound else { throw fail("le not increasing at \(le)") }
                guard bucket.value >= previousCount else { throw fail("counts not cumulative") }
                previousBound = bound
                previousCount = bucket.value
            }
            guard buckets.last?.labels["le"] == "+Inf" else { throw fail("no +Inf bucket") }
            guard previousCount == count.value else { throw fail("+Inf bucket != _count") }
        }
    }

    private static func parseSample(_ line: String, _ fail: (String) -> Failure) throws -> Sample {
        var rest = Substring(line)
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard isMetricName(name) else { throw fail("bad sample name \(name)") }
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "=") else { throw fail("label without =") }
                let labelName = String(rest[..<equals])
                guard isLabelName(labelName) else { throw fail("bad label name \(labelName)") }
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { throw fail("label value not quoted") }
                rest = rest.dropFirst()
                var value = ""
                while true {
                    guard let character = rest.first else { throw fail("unterminated value") }
                    rest = rest.dropFirst()
                    if character == "\"" { break }
                    if character == "\n" { throw fail("raw newline in label value") }
                    if character == "\\" {
                        guard let escaped = rest.first else { throw fail("dangling escape") }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw fail("unknown escape \\\(escaped)")
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard labels.updateValue(value, forKey: labelName) == nil else {
                    throw fail("label \(labelName) repeated")
                }
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw fail("no space before the value") }
        let valueText = String(rest.dropFirst())
        guard let value = parseValue(valueText) else { throw fail("bad value \(valueText)") }
        return Sample(name: name, labels: labels, value: value)
    }

    static func parseValue(_ text: String) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            guard !text.isEmpty, text.allSatisfy({ "0123456789.eE+-".contains($0) }) else {
                return nil
            }
            return Double(text)
        }
    }

    private static func unescapeHelp(_ text: Substring, _ fail: (String) -> Failure) throws
        -> String
    {
        var result = ""
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            switch characters.next() {
            case "\\": result.append("\\")
            case "n": result.append("\n")
            default: throw fail("unknown escape in HELP")
            }
        }
        return result
    }

    private static func isMetricName(_ name: String) -> Bool {
        matches(name, extra: ":")
    }

    private static func isLabelName(_ name: String) -> Bool {
        matches(name, extra: "")
    }

    private static func matches(_ name: String, extra: String) -> Bool {
        guard let first = name.first,
            first.isASCII && (first.isLetter || first == "_" || extra.contains(first))
        else { return false }
        return name.allSatisfy {
            $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || extra.contains($0))
        }
    }
}
