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

