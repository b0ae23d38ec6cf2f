/// A machine's action type, which carries the socket's actions in a `socket` case. The
/// machines and their tests spell those as the action's own (`.close`, `.write(bytes)`), and a
/// shell performs every `.socket(_)` alike.
public protocol RedisConnectionAction: Sendable, Equatable {
    static func socket(_ action: RedisSocketAction) -> Self
    /// The socket's action this is, or `nil` for one of the machine's own.
    var socketAction: RedisSocketAction? { get }
}

extension RedisConnectionAction {
    public static func connect(host: String, port: Int) -> Self { .socket(.connect(host: host, port: port)) }
    public static func write(_ bytes: [UInt8]) -> Self { .socket(.write(bytes)) }
    public static var close: Self { .socket(.close) }
    public static func armTimer(at instant: Duration) -> Self { .socket(.armTimer(at: instant)) }
    public static var cancelTimer: Self { .socket(.cancelTimer) }
}
