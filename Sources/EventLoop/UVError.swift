import CLibUV

/// A libuv failure: the negative errno value libuv returned, with its symbolic name.
package struct UVError: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: Int32

    package init(code: Int32) { self.code = code }

    /// "ECONNREFUSED", "ETIMEDOUT", …
    package var name: String { String(cString: uv_err_name(code)) }

    package var description: String { "\(name): \(String(cString: uv_strerror(code)))" }

    package static let connectionRefused = UVError(code: Int32(UV_ECONNREFUSED.rawValue))
    package static let connectionReset = UVError(code: Int32(UV_ECONNRESET.rawValue))
    package static let endOfFile = UVError(code: Int32(UV_EOF.rawValue))
    package static let timedOut = UVError(code: Int32(UV_ETIMEDOUT.rawValue))
    package static let cancelled = UVError(code: Int32(UV_ECANCELED.rawValue))
    package static let brokenPipe = UVError(code: Int32(UV_EPIPE.rawValue))
    package static let addressInUse = UVError(code: Int32(UV_EADDRINUSE.rawValue))
    package static let invalidArgument = UVError(code: Int32(UV_EINVAL.rawValue))

    /// Throws unless `result` is zero or positive.
    @inline(__always)
    static func check(_ result: Int32) throws(UVError) {
        if result < 0 { throw UVError(code: result) }
    }
}
