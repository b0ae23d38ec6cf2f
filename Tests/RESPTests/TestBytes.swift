/// The wire bytes of a string written with `\r\n` escapes.
func wire(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// Shorthand for the byte payloads of expected values.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}
