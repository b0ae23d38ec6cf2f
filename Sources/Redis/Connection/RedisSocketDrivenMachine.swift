
/// A connection machine as a `RedisSocket` drives it: both Redis machines take the socket's
/// events under the same names, so their shells feed them in one place.
protocol RedisSocketDrivenMachine {
    associatedtype Action: RedisConnectionAction
    var isShutDown: Bool { get }
    mutating func start(now: Duration) -> [Action]
    mutating func shutdown(now: Duration) -> [Action]
    mutating func connected(now: Duration) -> [Action]
    mutating func connectFailed(_ detail: String, now: Duration) -> [Action]
    mutating func received(_ bytes: some Sequence<UInt8>, now: Duration) -> [Action]
    mutating func peerClosed(now: Duration) -> [Action]
    mutating func timerFired(now: Duration) -> [Action]
}

extension RedisSocketDrivenMachine {
    /// Feeds one socket event to the machine and returns what it decided.
    mutating func take(_ event: RedisSocket.Event, now: Duration) -> [Action] {
        switch event {
        case .connected: connected(now: now)
        case .connectFailed(let detail): connectFailed(detail, now: now)
        case .received(let bytes): received(bytes, now: now)
        case .peerClosed: peerClosed(now: now)
        case .timerFired: timerFired(now: now)
        }
    }
}

extension RedisCommandConnectionStateMachine: RedisSocketDrivenMachine {}
extension RedisSubscriberStateMachine: RedisSocketDrivenMachine {}
