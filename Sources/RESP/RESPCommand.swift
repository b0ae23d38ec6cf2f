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
            let payload = argument.payloadCount
            total += 5 + DecimalWriter.digitCount(Int64(payload)) + payload
        }
        return total
    }

    /// Appends `*<count>\r\n` then `$<length>\r\n<payload>\r\n` for each argument to `buffer`,
    /// leaving what it already holds (earlier commands of a pipeline) in place.
    package func encode(into buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + encodedCount)
        appendHeader(UInt8(ascii: "*"), Int64(arguments.count), to: &buffer)
        for argument in arguments {
            appendHeader(UInt8(ascii: "$"), Int64(argument.payloadCount), to: &buffer)
            argument.appendPayload(to: &buffer)
            buffer.append(ASCII.cr)
            buffer.append(ASCII.lf)
        }
    }

    private func appendHeader(_ type: UInt8, _ number: Int64, to buffer: inout [UInt8]) {
        buffer.append(type)
        DecimalWriter.append(number, to: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }
}
