@testable import Fleet
@testable import App
import Foundation
import Metrics
import Testing

/// docs/operations.md lists every label value of the shared cache's series, so an operator
/// reading the table can write every query (`redis_commands_total{outcome="cancelled"}` was
/// missing).
@Suite("Metrics documentation")
struct MetricsDocumentationTests {
    @Test func everyLabelValueOfTheSharedCacheSeriesIsDocumented() throws {
        let docs = try String(contentsOf: Self.operationsFile, encoding: .utf8)
        let registry = MetricsRegistry(prefix: "product_details_")
        _ = SharedCacheMetrics(registry: registry)
        var missing: [String] = []
        for line in String(decoding: registry.render(), as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let open = line.firstIndex(of: "{") else { continue }
            let name = String(line[..<open])
            guard !name.hasSuffix("_bucket") else { continue }
            // The metric's row in the table: its name in backticks, then the labels column.
            guard let row = docs.split(separator: "\n").first(where: { $0.hasPrefix("| ") && $0.contains("`\(name)`") }) else {
                missing.append("\(name): no row")
                continue
            }
            let close = line.lastIndex(of: "}") ?? line.endIndex
            for pair in line[line.index(after: open)..<close].split(separator: ",") {
                let value = pair.split(separator: "=", maxSplits: 1).last.map { $0.filter { $0 != "\"" } } ?? ""
                if !row.contains("`\(value)`") { missing.append("\(name){\(pair)}") }
            }
        }
        #expect(missing == [])
    }

    static var operationsFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/operations.md")
    }
}
