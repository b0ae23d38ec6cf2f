/// Names one submitted request in the actions that complete it.
///
/// Assigned by the connection in submission order, so the shell keeps a dictionary from ID to
/// the waiting caller and never has to invent unique values of its own.
package struct RedisRequestID: Sendable, Hashable, Comparable, CustomStringConvertible {
    let value: UInt64

    init(_ value: UInt64) {
        self.value = value
    }

    package static func < (lhs: RedisRequestID, rhs: RedisRequestID) -> Bool {
        lhs.value < rhs.value
    }

    package var description: String { "#\(value)" }
}
