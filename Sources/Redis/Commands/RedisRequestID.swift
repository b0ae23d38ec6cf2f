/// Names one submitted request in the actions that complete it.
///
/// Assigned by the connection in submission order, so the shell keeps a dictionary from ID to
/// the waiting caller and never has to invent unique values of its own.
public struct RedisRequestID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let value: UInt64

    public init(_ value: UInt64) {
        self.value = value
    }

    public static func < (lhs: RedisRequestID, rhs: RedisRequestID) -> Bool {
        lhs.value < rhs.value
    }

    public var description: String { "#\(value)" }
}
