import Foundation
import HTTP1

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client for tests that need exact bytes on the wire. Every call runs on a thread
/// of its own (never on Swift's cooperative pool, which the server under test may need), and
/// every read has a deadline so a broken server fails the test instead of hanging it.
///
/// `@unchecked Sendable`: `fd`, `isClosed` and `pending` are used by one test at a time, from the
/// threads `blocking` starts one after another (never two at once): the test awaits each call.
package final class RawClient: @unchecked Sendable {
    private let fd: Int32
    private var isClosed = false
    private var pending: [UInt8] = []

    package init(port: Int, readTimeoutSeconds: Int = 20) throws {
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
            // Through `close()`, so it is marked closed: every stored property is set by now, so
            // `deinit` runs for this failed init too, and a second close(2) would close whatever
            // descriptor another thread has been given this number meanwhile (an event loop's
            // eventfd, say, whose next wake-up then aborts the process).
            close()
            throw RawClientError.connect(error)
        }
    }

    deinit { close() }

    package static func connect(port: Int, readTimeoutSeconds: Int = 20) async throws -> RawClient {
        try await blocking { try RawClient(port: port, readTimeoutSeconds: readTimeoutSeconds) }
    }

    /// Closes the connection (both directions): the server sees the client go away.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Closes with a TCP reset (linger 0): the server's next write to it fails.
    package func reset() {
        guard !isClosed else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    /// Closes the sending side only.
    package func shutdownWrite() {
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    package func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    package func send(_ bytes: [UInt8]) async throws {
        try await Self.blocking { [self] in try sendBlocking(bytes) }
    }

    /// `send(_:)` on the caller's thread, for helpers that are synchronous themselves.
    package func sendBlocking(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw RawClientError.send(errno) }
            offset += written
        }
    }

    /// Sends one keep-alive request.
    package func sendRequest(_ path: String, method: String = "GET", headers: [(String, String)] = [], body: String? = nil) async throws {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n"
        if let body { text += body }
        try await send(text)
    }

    /// Sends one request and reads its response.
    package func request(_ path: String, method: String = "GET", headers: [(String, String)] = [], body: String? = nil) async throws -> TestResponse {
        try await sendRequest(path, method: method, headers: headers, body: body)
        return try await readResponse(method: HTTPMethod(rawValue: method))
    }

    /// Reads one complete final response (interim 1xx answers are skipped by the parser).
    package func readResponse(method: HTTPMethod = .get) async throws -> TestResponse {
        try await Self.blocking { [self] in try readResponseBlocking(method: method) }
    }

    /// Reads exactly one interim (1xx) response head.
    package func readInterim() async throws -> String {
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

    /// True when the server closed (or reset) the connection with nothing more to read.
    package func readsEndOfStream() async throws -> Bool {
        try await Self.blocking { [self] in
            while true {
                if !pending.isEmpty { return false }
                do {
                    if try !fill() { return true }
                } catch RawClientError.reset {
                    return true
                }
            }
        }
    }

    /// True when the server has sent something or closed (checked without blocking).
    package func hasPendingBytes() async throws -> Bool {
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

    /// Reads until the server closes or resets the connection; every byte received, and whether
    /// the end was a reset.
    package func readUntilClosed() async throws -> (bytes: [UInt8], reset: Bool) {
        try await Self.blocking { [self] in
            var reset = false
            while true {
                do {
                    if try !fill() { break }
                } catch RawClientError.reset {
                    reset = true
                    break
                }
            }
            return (pending, reset)
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
            let more: Bool
            do {
                more = try fill()
            } catch RawClientError.reset {
                more = false
            }
            if !more {
                if let event = try parser.finishAtEOF(), event == .end, let head { return TestResponse(head: head, body: body) }
                throw RawClientError.closed
            }
        }
    }

    /// The bytes already received but not yet read, or else the next ones to arrive (empty at
    /// end of stream): for protocols other than HTTP, parsed by the test itself.
    package func receiveSome() async throws -> [UInt8] {
        try await Self.blocking { [self] in try receiveSomeBlocking() }
    }

    /// `receiveSome()` on the caller's thread.
    package func receiveSomeBlocking() throws -> [UInt8] {
        if pending.isEmpty { _ = try fill() }
        defer { pending.removeAll() }
        return pending
    }

    /// Reads more bytes; false at end of stream. A reset throws `RawClientError.reset`.
    private func fill() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        if count < 0 {
            if errno == ECONNRESET { throw RawClientError.reset }
            throw RawClientError.receive(errno)
        }
        pending.append(contentsOf: buffer[..<count])
        return true
    }

    /// Runs `body` on a thread of its own and awaits it.
    package static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }
}

/// A complete response as the raw client read it.
package struct TestResponse: Sendable {
    package let head: HTTPResponseHead
    package let body: [UInt8]

    package var status: Int { head.status.code }
    package var text: String { String(decoding: body, as: UTF8.self) }
    package func header(_ name: String) -> String? { head.headers[name] }
}

package enum RawClientError: Error {
    case socket(Int32), connect(Int32), send(Int32), receive(Int32), closed, reset
}

/// A loopback port free a moment ago: bound to port 0, read back, closed, for a server a test
/// starts on it. Not for "nothing listens here": the kernel may hand it to the next bind to port 0
/// (another suite's server, running in parallel) at once; ``RefusingLoopbackPort`` holds one.
package func unusedLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawClientError.socket(errno) }
    defer { Glibc.close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard named else { throw RawClientError.socket(errno) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A loopback port that refuses every connection for as long as this lives: a socket bound to it
/// and never listening, so a connect gets a reset (`ECONNREFUSED`) and no other socket can take
/// the port meanwhile (a bind to port 0 never gets a port in use; a server's `SO_REUSEPORT` bind
/// needs every socket on the port to have set it). Its socket closes when this is released:
/// keep it alive until the test is done with the port (`withExtendedLifetime`).
package final class RefusingLoopbackPort: Sendable {
    package let port: Int
    private let fd: Int32

    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError.socket(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard named else {
            let error = errno
            Glibc.close(fd)
            throw RawClientError.socket(error)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        Glibc.close(fd)
    }
}
