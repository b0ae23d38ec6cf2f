/// Names one submitted request in the actions that complete it.
///
/// Assigned by the connection in submission order, one after another, so the shell files the
/// waiting caller under it (``RequestTable``) and never has to invent unique values of its own.
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
