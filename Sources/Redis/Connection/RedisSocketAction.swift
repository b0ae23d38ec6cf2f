/// What a connection machine asks of its socket and its one timer: the part of its actions that
/// every Redis shell performs the same way, whichever machine it drives.
public enum RedisSocketAction: Sendable, Equatable {
    /// Open a TCP connection (resolving the host), then report `connected(now:)` or
    /// `connectFailed(_:now:)`.
    case connect(host: String, port: Int)
    /// Write these bytes after everything written before; report `writeFailed(_:now:)` if the
    /// socket refuses them.
    case write([UInt8])
    /// Close the socket (if any) and deliver no further events from it.
    case close
    /// Call `timerFired(now:)` at this instant, replacing any timer armed before: a connection
    /// needs one timer only.
    case armTimer(at: Duration)
    /// Disarm the timer.
    case cancelTimer
}
