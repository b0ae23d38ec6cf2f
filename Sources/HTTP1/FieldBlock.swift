/// Header fields written straight into wire form (`Name: value\r\n` each), for answers built on a
/// hot path: one growing byte buffer instead of an array of string pairs serialized later.
///
/// Names are static strings, checked as tokens once when added in debug builds; values have CR,
/// LF and NUL written as SP, like the serializers do, so no value can start a new line.
package struct FieldBlock: Sendable, Equatable {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package init(reservingCapacity capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    package var isEmpty: Bool { bytes.isEmpty }

    package mutating func add(_ name: StaticString, _ value: String) {
        var value = value
        value.withUTF8 { add(name, bytes: $0) }
    }

    package mutating func add(_ name: StaticString, _ value: StaticString) {
        add(name, bytes: UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }

    /// Whether `name` may name a field (an RFC 9110 token).
    package static func isFieldName(_ name: String) -> Bool {
        ASCII.isToken(name.utf8)
    }

    /// A field whose name is known only at run time (a setting), checked as a token when it was
    /// read; checked again here in debug builds.
    package mutating func add(checkedName name: String, _ value: String) {
        assert(Self.isFieldName(name), "\(name) is not a field name")
        bytes.append(contentsOf: name.utf8)
        bytes.append(ASCII.colon)
        bytes.append(ASCII.space)
        append(value)
        endField()
    }

    /// `name: <decimal value>`.
    package mutating func add(_ name: StaticString, decimal value: Int) {
        beginField(name)
        appendDecimal(value)
        endField()
    }

    package mutating func add(_ name: StaticString, bytes value: UnsafeBufferPointer<UInt8>) {
        beginField(name)
        appendValue(value)
        endField()
    }

    /// Builds one field's value from parts: `field(name) { $0.append("a"); $0.appendDecimal(1) }`.
    package mutating func field(_ name: StaticString, _ build: (inout FieldBlock) -> Void) {
        beginField(name)
        build(&self)
        endField()
    }

    /// Appends to the value of the field being built by `field(_:_:)`.
    package mutating func append(_ text: StaticString) {
        appendValue(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    package mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { appendValue($0) }
    }

    package mutating func appendDecimal(_ value: Int) {
        // Up to 15 digits fit a small string: no allocation for the values written here.
        bytes.append(contentsOf: String(value).utf8)
    }

    private mutating func beginField(_ name: StaticString) {
        let nameBytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        assert(!nameBytes.isEmpty && nameBytes.allSatisfy(ASCII.isTokenChar), "\(name) is not a field name")
        bytes.append(contentsOf: nameBytes)
        bytes.append(ASCII.colon)
        bytes.append(ASCII.space)
    }

    private mutating func appendValue(_ value: UnsafeBufferPointer<UInt8>) {
        for byte in value where byte == ASCII.cr || byte == ASCII.lf || byte == 0 {
            bytes.append(contentsOf: value.lazy.map(HeadWriter.sanitized))
            return
        }
        bytes.append(contentsOf: value)
    }

    private mutating func endField() {
        bytes.append(ASCII.cr)
        bytes.append(ASCII.lf)
    }
}
