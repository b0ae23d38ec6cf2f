/// A Redis command: its name and arguments, sent as an array of bulk strings.
///
/// This is the only form a client sends (the "inline" form cannot carry arbitrary bytes), so
/// keys and values may hold anything. Pipelining is encoding several commands into one buffer.
package struct RESPCommand: Sendable, Hashable {
    /// The name (first) and the arguments, in order.
    package var arguments: [RESPArgument]

    /// A command from its name and arguments: `RESPCommand("SET", "key", .bytes(page), "PX", 5000)`.
    package init(_ name: String, _ arguments: RESPArgument...) {
        var all: [RESPArgument] = []
        all.reserveCapacity(arguments.count + 1)
        all.append(.string(name))
        all.append(contentsOf: arguments)
        self.arguments = all
    }

    /// A command whose name is `arguments[0]`.
    package init(arguments: [RESPArgument]) {
        self.arguments = arguments
    }

    /// Exactly how many bytes `encode(into:)` appends, so a caller can reserve them once.
    package var encodedCount: Int {
        var total = 3 + DecimalWriter.digitCount(Int64(arguments.count))
        for argument in arguments {
            total += Self.encodedCount(ofArgument: argument.payloadCount)
        }
        return total
    }

    /// Appends `*<count>\r\n` then `$<length>\r\n<payload>\r\n` for each argument to `buffer`,
    /// leaving what it already holds (earlier commands of a pipeline) in place.
    package func encode(into buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + encodedCount)
        Self.appendHeader(arguments: arguments.count, to: &buffer)
        for argument in arguments {
            Self.appendArgument(argument, to: &buffer)
        }
    }

    /// Appends `*<count>\r\n`: a command of `count` arguments that the caller then appends one
    /// by one, straight into its buffer, without an argument array (a read on the hot path).
    package static func appendHeader(arguments count: Int, to buffer: inout [UInt8]) {
        appendLine(UInt8(ascii: "*"), Int64(count), to: &buffer)
    }

    /// Appends one argument of a command begun with ``appendHeader(arguments:to:)``.
    package static func appendArgument(_ argument: RESPArgument, to buffer: inout [UInt8]) {
        appendArgument(length: argument.payloadCount, to: &buffer) { argument.appendPayload(to: &$0) }
    }

    /// Appends one argument whose payload `write` appends: exactly `length` bytes.
    package static func appendArgument(length: Int, to buffer: inout [UInt8], _ write: (inout [UInt8]) -> Void) {
        appendLine(UInt8(ascii: "$"), Int64(length), to: &buffer)
        let start = buffer.count
        write(&buffer)
        precondition(buffer.count - start == length, "an argument's payload differs from its stated length")
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// The bytes of an argument of `length` payload bytes, header and CRLF included.
    package static func encodedCount(ofArgument length: Int) -> Int {
        5 + DecimalWriter.digitCount(Int64(length)) + length
    }

    private static func appendLine(_ type: UInt8, _ number: Int64, to buffer: inout [UInt8]) {
        buffer.append(type)
        DecimalWriter.append(number, to: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }
}
