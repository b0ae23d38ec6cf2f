/// A header section's field lines as they arrived (`name: value` CRLF each, validated by the
/// parser that kept them), made into ``HTTPHeaders`` only when read.
///
/// The client keeps an upstream answer's fields this way: the parser decides framing from the
/// few fields it notes while reading, and callers seldom look at the rest. Building them up front
/// cost two strings per field, and an allocation per value longer than 15 bytes (an nginx
/// answer's Date, Last-Modified and Content-Type), on every upstream call.
///
/// Equal when the lines are the same bytes: unlike ``HTTPHeaders``, names compare exactly here.
package struct HTTPFieldLines: Sendable, Equatable {
    private let bytes: [UInt8]

    package init() {
        bytes = []
    }

    /// The lines of `headers`, written as a serializer would (CR, LF and NUL become spaces).
    package init(_ headers: HTTPHeaders) {
        var bytes: [UInt8] = []
        HeadWriter.appendFields(headers, into: &bytes, terminated: false)
        self.bytes = bytes
    }

    init(validated bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var isEmpty: Bool { bytes.isEmpty }

    /// The fields, in order. A line that does not scan (possible only for lines built by
    /// `init(_:)` from a name that is not a token) ends the list.
    package var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        bytes.withUnsafeBytes { input in
            var scanner = FieldLineScanner()
            var offset = 0
            while offset < input.count,
                  case .field(let name, let value, let next)? = try? scanner.nextLine(
                      in: input, from: offset, maxLength: .max, tooLong: .headerSectionTooLarge) {
                headers.add(
                    name: String(decoding: UnsafeRawBufferPointer(rebasing: input[name]), as: UTF8.self),
                    value: String(decoding: UnsafeRawBufferPointer(rebasing: input[value]), as: UTF8.self))
                offset = next
            }
        }
        return headers
    }
}
