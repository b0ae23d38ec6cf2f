import Locking
import TestSupport

/// One `redis-server` for the tests that only need keys of their own (each uses a prefix from
/// ``RandomPrefix``): starting one per test would keep the host busy starting servers.
enum SharedRedis {
    private static let started = Locked<RedisServer?>(nil)

    static func server() async throws -> RedisServer {
        if let server = started.withLock({ $0 }) { return server }
        let server = try await RedisServer.started()
        return started.withLock { current in
            if let current { return current }
            current = server
            return server
        }
    }
}

enum RandomPrefix {
    static func next() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
