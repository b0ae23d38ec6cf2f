import EventLoop
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

@Suite("TCP stream writes")
struct TCPStreamWriteTests {
    /// The loop's side of the test, kept alive until the group shuts down; touched only on the loop
    /// thread (inside the listener's task and its accept callback).
    final class Handles: @unchecked Sendable {
        var listener: TCPListener?
        var accepted: [TCPStream] = []
    }

    /// `count` bytes cycling through a 251-byte block that starts at `seed`: built by block
    /// copies, so megabytes cost little even in a debug build.
    static func pattern(_ count: Int, seed: Int) -> [UInt8] {
        let block = (0..<251).map { UInt8(truncatingIfNeeded: ($0 &+ seed) % 251) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + block.count)
        while bytes.count < count { bytes.append(contentsOf: block) }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// Nobody reads while both head-and-body writes are made, so the kernel takes part of the first
    /// (what the socket buffers hold) and the second finds output queued: its head and body are
    /// queued together, and everything must arrive in order, byte for byte.
    @Test func headAndBodyWritesQueuedBehindOthersArriveInOrder() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let parts = [Array("first head\r\n".utf8), Self.pattern(8 << 20, seed: 1), Array("second head\r\n".utf8), Self.pattern(64 << 10, seed: 2)]
        let handles = Handles()
        let (queuedAfterWriting, report) = AsyncStream.makeStream(of: Int.self)
        let port = try await Task(executorPreference: loop) { () throws -> Int in
            let listener = try TCPListener(loop: loop, address: try SocketAddress(ip: "127.0.0.1", port: 0), reusePort: false) { stream in
                handles.accepted.append(stream)
                stream.write(parts[0], parts[1][...])
                stream.write(parts[2], parts[3][...])
                report.yield(stream.queuedWriteBytes)
                stream.closeAfterFlush()
            }
            handles.listener = listener
            return listener.port
        }.value
        let client = try await RawClient.connect(port: port, readTimeoutSeconds: 60)
        var reports = queuedAfterWriting.makeAsyncIterator()
        let queued = await reports.next() ?? 0
        #expect(queued > parts[2].count + parts[3].count, "the second write should have waited whole behind the first")
        let (bytes, wasReset) = try await client.readUntilClosed()
        #expect(!wasReset)
        let expected = parts.flatMap { $0 }
        // Compared by memcmp outside #expect, whose failure message would print megabytes.
        let intact = bytes.count == expected.count && bytes.withUnsafeBytes { got in
            expected.withUnsafeBytes { memcmp(got.baseAddress!, $0.baseAddress!, $0.count) == 0 }
        }
        #expect(bytes.count == expected.count)
        #expect(intact)
    }
}
