import HTTP1

/// A complete request as a handler sees it: the parsed head, the whole body, and the path
/// parameters the router matched.
/// `public` (its members `package`): the typed entry points (`AttachedContext`) name it.
public struct HTTPRequest: Sendable {
    package var head: HTTPRequestHead
    package var body: [UInt8]
    package var pathParameters: PathParameters

    package init(head: HTTPRequestHead, body: [UInt8] = [], pathParameters: PathParameters = PathParameters()) {
        self.head = head
        self.body = body
        self.pathParameters = pathParameters
    }

    package var method: HTTPMethod { head.method }
    package var path: String { head.path }
    package var headers: HTTPHeaders { head.headers }

    /// The decoded values of a query parameter, in order (`?ids=a,b&x=1` → `["a,b"]` for "ids").
    package func queryValues(_ name: String) -> [String] {
        guard let query = head.query else { return [] }
        var values: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = try? PercentDecoding.decode(parts[0], plusIsSpace: true), key == name else { continue }
            let value = parts.count > 1 ? try? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
            if let value { values.append(value) }
        }
        return values
    }
}
