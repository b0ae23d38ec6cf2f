import CLibUV
@testable import EventLoop
import Testing
import TestSupport

@Suite("Edge-triggered polling")
struct EdgeTriggeredPollingTests {
    /// The loop's side of a test; touched only on the loop thread.
    final class Handles: @unchecked Sendable {
        var listener: TCPListener?
        var accepted: TCPStream?
        var received = 0
    }

    /// A loop with `readBufferSize`, a listener that keeps the one connection it accepts without
    /// reading it, and a client connected to it.
    static func connected(readBufferSize: Int = 64 * 1024) async throws -> (EventLoopGroup, Handles, RawClient) {
        let group = try EventLoopGroup(loopCount: 1, readBufferSize: readBufferSize)
        let loop = group.loops[0]
        let handles = Handles()
        let (accepts, accepted) = AsyncStream.makeStream(of: Void.self)
        let port = try await Task(executorPreference: loop) { () throws -> Int in
            let listener = try TCPListener(loop: loop, address: try SocketAddress(ip: "127.0.0.1", port: 0), reusePort: false) { stream in
                handles.accepted = stream
                accepted.yield()
            }
            handles.listener = listener
            return listener.port
        }.value
        let client = try await RawClient.connect(port: port, readTimeoutSeconds: 10)
        var iterator = accepts.makeAsyncIterator()
        await iterator.next()
        return (group, handles, client)
    }

    @Test(arguments: [true, false])
    func aConnectionIsRegisteredEdgeTriggeredOnlyWhenAskedTo(edgeTriggered: Bool) async throws {
        let (group, handles, client) = try await Self.connected()
        defer { group.shutdown() }
        let loop = group.loops[0]
        let (reads, read) = AsyncStream.makeStream(of: Void.self)
        let descriptor = await Task(executorPreference: loop) { () -> Int32? in
            guard let stream = handles.accepted else { return nil }
            if edgeTriggered { #expect(stream.pollEdgeTriggered()) }
            stream.onRead = { _ in read.yield() }
            stream.startReading()
            return stream.descriptor
        }.value
        // libuv registers the socket when it next polls; a read proves it has.
        try await client.send("x")
        var iterator = reads.makeAsyncIterator()
        await iterator.next()
        let registrations = try EpollRegistration.all(in: uv_backend_fd(loop.uvLoop))
        let events = try #require(registrations.first { $0.descriptor == descriptor }?.events, "the socket should be in the loop's epoll set")
        #expect(events & EpollRegistration.readable != 0)
        #expect((events & EpollRegistration.edgeTriggered != 0) == edgeTriggered)
        #expect((events & EpollRegistration.peerClosedWriting != 0) == edgeTriggered)
    }

    /// 48 KiB wait in the socket before reading starts, and the loop reads 1 KiB at a time: libuv
    /// stops after 32 full reads, and since no more bytes arrive, only the stream's re-arming after
    /// a full read makes the kernel report the rest. The client's read would time out without it.
    @Test(arguments: [true, false])
    func bytesLeftAfterLibuvsReadLimitAreStillRead(edgeTriggered: Bool) async throws {
        let (group, handles, client) = try await Self.connected(readBufferSize: 1024)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let total = 48 * 1024
        try await client.send([UInt8](repeating: 0x61, count: total))
        await Task(executorPreference: loop) {
            guard let stream = handles.accepted else { return }
            if edgeTriggered { #expect(stream.pollEdgeTriggered()) }
            stream.onRead = { bytes in
                handles.received += bytes.count
                if handles.received == total {
                    stream.write(Array("all read\n".utf8))
                    stream.closeAfterFlush()
                }
            }
            stream.startReading()
        }.value
        let (answer, _) = try await client.readUntilClosed()
        #expect(String(decoding: answer, as: UTF8.self) == "all read\n")
    }

    /// The client's request and its FIN wait in the socket before reading starts: libuv reads the
    /// bytes, stops at the short read, and no edge follows for the FIN; only the stream's check
    /// after a short read (the EPOLLRDHUP that came with the data) reports the end. The client's
    /// read would time out without it.
    @Test(arguments: [true, false])
    func aFinThatCameWithTheDataEndsTheRead(edgeTriggered: Bool) async throws {
        let (group, handles, client) = try await Self.connected()
        defer { group.shutdown() }
        let loop = group.loops[0]
        try await client.send("hello")
        client.shutdownWrite()
        await Task(executorPreference: loop) {
            guard let stream = handles.accepted else { return }
            if edgeTriggered { #expect(stream.pollEdgeTriggered()) }
            stream.onRead = { bytes in handles.received += bytes.count }
            stream.onReadEnd = { error in
                stream.write(Array("read \(handles.received), ended \(error == nil ? "cleanly" : "with an error")\n".utf8))
                stream.closeAfterFlush()
            }
            stream.startReading()
        }.value
        let (answer, _) = try await client.readUntilClosed()
        #expect(String(decoding: answer, as: UTF8.self) == "read 5, ended cleanly\n")
    }
}
