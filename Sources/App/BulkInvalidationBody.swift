import HTTP1
import JSON
import ProductDetails

/// The body of `POST /cache/invalidations`: `{"products": ["p1", "p2", …]}`, 1 to
/// ``maxProducts`` valid ids (counted as listed), duplicates folded. Anything else is refused whole, naming what is
/// wrong, so a bad request invalidates nothing.
enum BulkInvalidationBody {
    static let maxProducts = 1000
    /// The largest body read: a thousand ids of the longest kind, quoted and separated, with room
    /// for generous whitespace. Larger is `413` before parsing.
    static let maxBytes = 256 * 1024

    enum Problem: Error, Equatable {
        /// `415`: the body is not declared as JSON.
        case unsupportedMediaType(String)
        /// `413`: larger than ``maxBytes``.
        case tooLarge
        /// `400`, with what is wrong.
        case invalid(String)
    }

    /// Checks the declared type and reads the ids, each once, in their first order.
    static func products(contentType: String?, body: [UInt8]) -> Result<[String], Problem> {
        guard let contentType, isJSON(contentType) else {
            return .failure(.unsupportedMediaType(contentType ?? ""))
        }
        guard body.count <= maxBytes else { return .failure(.tooLarge) }
        let document: JSONValue
        do {
            document = try JSONValue.parse(body)
        } catch {
            return .failure(.invalid("The body is not JSON: \(error.message)."))
        }
        guard case .object(let members) = document else {
            return .failure(.invalid("The body must be a JSON object with a \"products\" array."))
        }
        if let unknown = members.keys.sorted().first(where: { $0 != "products" }) {
            return .failure(.invalid("Unknown member \"\(unknown.prefix(64))\": only \"products\" is read."))
        }
        guard let listed = members["products"] else {
            return .failure(.invalid("The member \"products\" is missing."))
        }
        guard case .array(let elements) = listed else {
            return .failure(.invalid("\"products\" must be an array of product ids."))
        }
        guard (1...maxProducts).contains(elements.count) else {
            return .failure(.invalid("\"products\" has \(elements.count) ids: name 1 to \(maxProducts) per request."))
        }
        var ids: [String] = []
        var seen: Set<String> = []
        for (index, element) in elements.enumerated() {
            guard case .string(let id) = element else {
                return .failure(.invalid("products[\(index)] is not a string."))
            }
            guard ProductDetailsService.isValidID(id) else {
                return .failure(.invalid("products[\(index)] is not a valid product id: use 1 to 64 of A-Z a-z 0-9 _ -."))
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return .success(ids)
    }

    /// `application/json`, with no parameter or `charset=utf-8` (RFC 8259 has no other).
    static func isJSON(_ contentType: String) -> Bool {
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false)
        guard parts[0].trimmingCharacters().lowercased() == "application/json" else { return false }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters().lowercased() == "charset" else { return false }
            var value = pair[1].trimmingCharacters()
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            guard value.lowercased() == "utf-8" else { return false }
        }
        return true
    }
}
