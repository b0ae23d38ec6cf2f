import CLibUV

/// A libuv failure: the negative errno value libuv returned, with its symbolic name.
public struct UVError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    /// "ECONNREFUSED", "ETIMEDOUT", …
    public var name: String { String(cString: uv_err_name(code)) }

    public var description: String { "\(name): \(String(cString: uv_strerror(code)))" }

    public static let connectionRefused = UVError(code: Int32(UV_ECONNREFUSED.rawValue))
    public static let connectionReset = UVError(code: Int32(UV_ECONNRESET.rawValue))
    public static let endOfFile = UVError(code: Int32(UV_EOF.rawValue))
    public static let timedOut = UVError(code: Int32(UV_ETIMEDOUT.rawValue))
    public static let cancelled = UVError(code: Int32(UV_ECANCELED.rawValue))
    public static let brokenPipe = UVError(code: Int32(UV_EPIPE.rawValue))
    public static let addressInUse = UVError(code: Int32(UV_EADDRINUSE.rawValue))
    public static let invalidArgument = UVError(code: Int32(UV_EINVAL.rawValue))

    /// Throws unless `result` is zero or positive.
    @inline(__always)
    static func check(_ result: Int32) throws(UVError) {
        if result < 0 { throw UVError(code: result) }
    }
}
