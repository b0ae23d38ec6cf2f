import Foundation

/// Decoders for the three upstream JSON bodies.
///
/// Every decoding problem, whether broken syntax, a missing field or a wrong type (a price of `12.5`
/// or `"12"`), becomes ``UpstreamFailure/malformedBody(_:)`` so that the retry loop and the
/// service can treat it as one "bad answer" without knowing about `DecodingError`.
public enum UpstreamJSON {
    /// Decodes `{"id","name","priceInCents","currency"}`.
    public static func product(from body: [UInt8]) throws(UpstreamFailure) -> Product {
        try decode(Product.self, from: body)
    }

    /// Decodes `[{"id","rating","text"}]`.
    public static func reviews(from body: [UInt8]) throws(UpstreamFailure) -> [Review] {
        try decode([Review].self, from: body)
    }

    /// Decodes `[product]`.
    public static func products(from body: [UInt8]) throws(UpstreamFailure) -> [Product] {
        try decode([Product].self, from: body)
    }

    private static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(UpstreamFailure) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw .malformedBody(describe(error))
        } catch {
            throw .malformedBody("undecodable body")
        }
    }

    /// A short description naming the field, never echoing the body (it may be large or hostile).
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "body" : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context): return "wrong type at \(path(context))"
        case .valueNotFound(_, let context): return "null at \(path(context))"
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "missing field \(key.stringValue)\(parent)"
        case .dataCorrupted(let context): return "invalid JSON at \(path(context))"
        @unknown default: return "undecodable body"
        }
    }
}
