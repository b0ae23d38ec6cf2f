import CatalogStub
import EventLoop
import HTTPServer
import TestSupport

/// Runs `body` against a live stub on 127.0.0.1 and an ephemeral port, then shuts it down.
func withStub(
    loops: Int = 1,
    configure: (inout StubConfiguration) -> Void = { _ in },
    _ body: (CatalogStub, Int) async throws -> Void
) async throws {
    var configuration = StubConfiguration()
    configuration.port = 0
    configure(&configuration)
    let group = try EventLoopGroup(loopCount: loops)
    let stub = CatalogStub(group: group, configuration: configuration)
    let port = try await stub.start()
    do {
        try await body(stub, port)
    } catch {
        await stub.shutdown()
        group.shutdown()
        throw error
    }
    await stub.shutdown()
    group.shutdown()
}

/// Polls `condition` (yielding between tries, never sleeping) until it holds or `timeout` passes;
/// the timeout only bounds a failing test, nothing is asserted about time.
func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
