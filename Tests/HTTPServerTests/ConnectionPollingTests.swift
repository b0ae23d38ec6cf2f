import EventLoop
import Foundation
import HTTPServer
import Testing
import TestSupport

/// The server registers its client connections with epoll edge-triggered unless configured
/// otherwise; read back from the kernel's tables (/proc) by the connection's socket inode.
@Suite("Connection polling mode")
struct ConnectionPollingTests {
    @Test(arguments: [true, false])
    func clientConnectionsArePolledAsConfigured(edgeTriggered: Bool) async throws {
        try await withServer(
            configure: { $0.edgeTriggeredPolling = edgeTriggered }, loops: 1,
            routes: { $0.addImmediate(.get, "/") { _, _ in .text(.ok, "hi") } }
        ) { _, port in
            let client = try await RawClient.connect(port: port)
            // Answered, so the server has read the connection: libuv has registered it.
            #expect(try await client.request("/").status == 200)
            let inode = try #require(try EpollRegistration.acceptedSocketInode(port: port))
            let events = try #require(try EpollRegistration.allInProcess().first { $0.inode == inode }?.events)
            #expect(events & EpollRegistration.readable != 0)
            #expect((events & EpollRegistration.edgeTriggered != 0) == edgeTriggered)
        }
    }

}
