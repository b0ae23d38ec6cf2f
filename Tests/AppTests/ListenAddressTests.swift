import EventLoop
import Testing

@testable import App

/// `PORT` settled before the listeners bind.
@Suite struct ListenAddressTests {
    /// `PORT=0` used to be settled to the kernel's pick of a probe socket, closed at once, and the
    /// listeners then bound that number: in between any outgoing connection or other server could
    /// take it, and a test under load failed its start with `EADDRINUSE`. The listeners pick now.
    @Test func port0IsLeftForTheListenersToPick() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let address = try await ListenAddress.settle(host: "127.0.0.1", port: 0, on: group.loops[0])
        #expect(address.ip == "127.0.0.1")
        #expect(address.port == 0)
    }
}
