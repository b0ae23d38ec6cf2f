/// One key-value pair of a RESP3 map.
///
/// A struct rather than a tuple so that `RESPValue` can be `Hashable`; a list rather than a
/// dictionary because keys are themselves replies and their order can matter (`HELLO`).
public struct RESPMapEntry: Sendable, Hashable {
    public var key: RESPValue
    public var value: RESPValue

    public init(key: RESPValue, value: RESPValue) {
        self.key = key
        self.value = value
    }
}
