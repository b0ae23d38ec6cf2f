/// One key-value pair of a RESP3 map.
///
/// A struct rather than a tuple so that `RESPValue` can be `Hashable`; a list rather than a
/// dictionary because keys are themselves replies and their order can matter (`HELLO`).
package struct RESPMapEntry: Sendable, Hashable {
    package var key: RESPValue
    package var value: RESPValue

    package init(key: RESPValue, value: RESPValue) {
        self.key = key
        self.value = value
    }
}
