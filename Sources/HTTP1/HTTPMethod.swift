/// A request method token (RFC 9110 §9). Methods are case-sensitive, so the raw
/// value is kept exactly as received; the common ones are offered as constants. `public` because
/// the router's typed entry points (`@inlinable public`, see `AttachedContext`) take one.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    package static let get = HTTPMethod(rawValue: "GET")
    package static let head = HTTPMethod(rawValue: "HEAD")
    package static let post = HTTPMethod(rawValue: "POST")
    package static let put = HTTPMethod(rawValue: "PUT")
    package static let delete = HTTPMethod(rawValue: "DELETE")
    package static let options = HTTPMethod(rawValue: "OPTIONS")
    package static let patch = HTTPMethod(rawValue: "PATCH")
    package static let trace = HTTPMethod(rawValue: "TRACE")
    package static let connect = HTTPMethod(rawValue: "CONNECT")

    public var description: String { rawValue }
}
