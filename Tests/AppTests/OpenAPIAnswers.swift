import Foundation

/// The route, method and status of every answer `openapi.yaml` documents per operation, read
/// with just enough YAML for the file's own layout (paths at two spaces, methods at four,
/// `responses:` at six, status keys at eight), so a test compares the contract itself, not a
/// copy of it. A layout it does not recognise reads as no operations, which fails the tests.
struct OpenAPIAnswers: Hashable, CustomStringConvertible {
    let route: String
    let method: String
    let code: Int

    var description: String { "\(method) \(route) \(code)" }

    static func read(_ url: URL) throws -> Set<OpenAPIAnswers> {
        let text = try String(contentsOf: url, encoding: .utf8)
        var answers = Set<OpenAPIAnswers>()
        var inPaths = false
        var route: String?
        var method: String?
        var inResponses = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let key = line.dropFirst(indent)
            guard !key.isEmpty, !key.hasPrefix("#") else { continue }
            switch indent {
            case 0:
                inPaths = key == "paths:"
                route = nil
            case 2 where inPaths && key.hasPrefix("/") && key.hasSuffix(":"):
                route = String(key.dropLast())
                method = nil
            case 4 where route != nil && key.hasSuffix(":"):
                method = key.dropLast().uppercased()
                inResponses = false
            case 6 where method != nil:
                inResponses = key == "responses:"
            case 8 where inResponses:
                let status = key.filter(\.isNumber)
                if let route, let method, key.hasSuffix(":"), status.count == 3, let code = Int(status) {
                    answers.insert(OpenAPIAnswers(route: route, method: method, code: code))
                }
            default:
                break
            }
        }
        return answers
    }

    /// `openapi.yaml` at the repository's root.
    static var contractFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("openapi.yaml")
    }
}
