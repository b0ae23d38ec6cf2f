/// Why an upstream body could not be read as one of our shapes.
///
/// `message` names the field (as `0.rating`, `priceInCents` or `body`) and, for syntax problems,
/// the byte offset; it never echoes the body, which may be large or hostile. ``UpstreamJSON`` turns
/// it into ``UpstreamFailure/malformedBody(_:)``.
@usableFromInline
package struct JSONReadError: Error, Sendable, Equatable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}
