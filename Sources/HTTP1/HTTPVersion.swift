/// The protocol version of a message. Only HTTP/1.0 and HTTP/1.1 are spoken by
/// this module; anything else is answered with 505 by the parsers.
package struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    package var major: Int
    package var minor: Int

    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)

    package var description: String { "HTTP/\(major).\(minor)" }
}
