import Foundation
import HTTP1

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client for tests that need exact bytes on the wire. Every call runs on a thread
/// of its own (never on Swift's cooperative pool, which the server under test may need), and
/// every read has a deadline so a broken server fails the test instead of hanging it.
final class RawClient: @unchecked Sendable {
    // `fd` and `pending` are used by one test at a time, from the thread `blocking` starts.
    private let fd: Int32
    private var pending: [UInt8] = []

    init(port: Int, readTimeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError.socket(errno) }
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let error = errno
            Glibc.close(fd)
            throw RawClientError.connect(error)
        }
    }

    deinit { Glibc.close(fd) }

    static func connect(port: Int, readTimeoutSeconds: Int = 10) async throws -> RawClient {
        try await blocking { try RawClient(port: port, readTimeoutSeconds: readTimeoutSeconds) }
    }

    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await Self.blocking { [self] in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { throw RawClientError.send(errno) }
                offset += written
            }
        }
    }

    /// Closes the sending side only.
    func shutdownWrite() {
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// True when the server has sent something (checked without blocking).
    func hasPendingBytes() async throws -> Bool {
        try await Self.blocking { [self] in
            if !pending.isEmpty { return true }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                pending.append(contentsOf: buffer[..<count])
                return true
            }
            return count == 0
        }
    }

    /// Reads one complete response (skipping interim 1xx unless `interim` is set).
    func readResponse(method: HTTPMethod = .get) async throws -> TestResponse {
        try await Self.blocking { [self] in try readResponseBlocking(method: method) }
    }

    /// Reads exactly one interim (1xx) response head.
    func readInterim() async throws -> String {
        try await Self.blocking { [self] in
            while true {
                if let end = pending.firstRange(of: [13, 10, 13, 10]) {
                    let head = String(decoding: pending[..<end.upperBound], as: UTF8.self)
                    pending.removeSubrange(..<end.upperBound)
                    return head
                }
                guard try fill() else { throw RawClientError.closed }
            }
        }
    }

    /// True when the server closed the connection (reads end of stream) before `timeout`.
    func readsEndOfStream() async throws -> Bool {
        try await Self.blocking { [self] in
            while true {
                if !pending.isEmpty { return false }
                if try !fill() { return true }
            }
        }
    }

    private func readResponseBlocking(method: HTTPMethod) throws -> TestResponse {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 1 << 26
        var parser = HTTPResponseParser(limits: limits)
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        while true {
            var consumedTotal = 0
            var finished = false
            try pending.withUnsafeBytes { all in
                while true {
                    let input = UnsafeRawBufferPointer(rebasing: all[consumedTotal...])
                    let step = try parser.parse(input, requestMethod: method)
                    consumedTotal += step.consumed
                    switch step.event {
                    case .needMoreData: return
                    case .head(let parsed): head = parsed
                    case .body(let range): body.append(contentsOf: input[range])
                    case .end:
                        finished = true
                        return
                    }
                }
            }
            pending.removeSubrange(..<consumedTotal)
            if finished, let head { return TestResponse(head: head, body: body) }
            if try !fill() {
                if let event = try parser.finishAtEOF(), event == .end, let head { return TestResponse(head: head, body: body) }
                throw RawClientError.closed
            }
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw RawClientError.receive(errno)
        }
        pending.append(contentsOf: buffer[..<count])
        return true
    }

    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }
}

struct TestResponse: Sendable {
    let head: HTTPResponseHead
    let body: [UInt8]

    var status: Int { head.status.code }
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { head.headers[name] }
}

enum RawClientError: Error {
    case socket(Int32), connect(Int32), send(Int32), receive(Int32), closed
}
