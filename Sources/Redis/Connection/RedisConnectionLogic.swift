import RESP

/// What the command and subscriber machines do alike, written once: splitting the socket's
/// bytes into replies, ending a connection the socket lost, and asking for the one timer their
/// state wants. Each machine answers for its own states through the requirements.
protocol RedisConnectionLogic {
    associatedtype Action: RedisConnectionAction
    var url: RedisURL { get }
    var reader: RedisReplyReader { get set }
    var timer: TimerSchedule { get set }
    /// Whether a TCP connect is in progress.
    var isConnecting: Bool { get }
    /// Whether a connected socket is open (handshake, ready, subscribed, draining).
    var hasOpenSocket: Bool { get }
    /// The earliest instant something must happen in the current state, if any.
    func wantedTimer() -> Duration?
    /// One reply read off the open socket.
    mutating func handle(_ reply: RESPValue, now: Duration, into actions: inout [Action])
    /// Closes the connection for `error`, fails or reports what it must, and schedules the next
    /// attempt when one may help.
    mutating func connectionEnded(_ error: RedisClientError, now: Duration, into actions: inout [Action])
}

extension RedisConnectionLogic {
    /// Bytes read from the socket: every complete reply in them is handled, in order.
    mutating func readReplies(_ bytes: some Sequence<UInt8>, now: Duration) -> [Action] {
        guard hasOpenSocket else { return [] }
        reader.append(bytes)
        var actions: [Action] = []
        while hasOpenSocket {
            let reply: RESPValue?
            do throws(RESPParseError) {
                reply = try reader.next()
            } catch {
                connectionEnded(RedisClientError.protocolError.detailed("Redis sent an invalid reply: \(error.detail)"), now: now, into: &actions)
                break
            }
            guard let reply else { break }
            handle(reply, now: now, into: &actions)
        }
        return finish(actions)
    }

    /// The TCP connection could not be opened (refused, unreachable, name not resolved).
    mutating func attemptFailed(_ detail: String, now: Duration) -> [Action] {
        guard isConnecting else { return [] }
        var actions: [Action] = []
        connectionEnded(RedisClientError.connectFailed.detailed("Could not connect to Redis at \(url.host):\(url.port): \(detail)"), now: now, into: &actions)
        return finish(actions)
    }

    /// The open socket was closed by the peer or refused a write.
    mutating func socketLost(_ error: RedisClientError, now: Duration) -> [Action] {
        guard hasOpenSocket else { return [] }
        var actions: [Action] = []
        connectionEnded(error, now: now, into: &actions)
        return finish(actions)
    }

    /// Appends the timer change the new state needs: every public event ends here.
    mutating func finish(_ actions: [Action]) -> [Action] {
        var actions = actions
        switch timer.change(to: wantedTimer()) {
        case .arm(let instant): actions.append(.armTimer(at: instant))
        case .cancel: actions.append(.cancelTimer)
        case nil: break
        }
        return actions
    }
}
