import CatalogStub
import PureTestSupport
import Testing
import TestSupport

/// The slow-first-call fault over real sockets. Its delay is ten minutes, so "slow" is a request
/// that has not answered while later ones have, with no timing window to flake.
@Suite struct SlowFirstCallTests {
    static let endless = FaultPlan(slowFirstEvery: 5, slowFirstMs: 600_000)

    @Test func onlyTheFirstCallForAPickedProductWaits() async throws {
        try await withStub { stub, port in
            stub.setFaults(Self.endless, for: .product)
            let first = try await RawClient.connect(port: port)
            try await first.sendRequest("/products/p5")
            await eventually(.live) { stub.stats().slowFirstCalls == 1 }

            // A second attempt while the first still waits answers at once, and so does a
            // product the fault does not pick, and another route.
            let second = try await RawClient.connect(port: port)
            let again = try await second.request("/products/p5")
            #expect(again.status == 200)
            #expect(again.body == stub.catalog.productJSON("p5"))
            #expect(try await second.request("/products/p4").status == 200)
            #expect(try await second.request("/products/p10/reviews").status == 200)
            #expect(stub.stats().slowFirstCalls == 1)
            #expect(try await first.hasPendingBytes() == false)

            first.close()
            await eventually(.live) { stub.stats().abandoned == 1 }
            // The abandoned call still counted as the first.
            #expect(try await second.request("/products/p5").status == 200)
        }
    }

    @Test func controlRouteSetsItAndDeleteForgetsTheProductsSeen() async throws {
        try await withStub { stub, port in
            let control = try await RawClient.connect(port: port)
            let put = try await control.request("/control/faults/reviews", method: "PUT", body: #"{"slowFirstEvery":5,"slowFirstMs":600000}"#)
            #expect(put.status == 204)
            let slow = try await RawClient.connect(port: port)
            try await slow.sendRequest("/products/p15/reviews")
            await eventually(.live) { stub.stats().slowFirstCalls == 1 }
            #expect(try await control.request("/products/p15/reviews").status == 200)
            #expect(try await control.request("/products/p15").status == 200)
            slow.close()

            // Cleared and set again: p15 is a first call once more.
            #expect(try await control.request("/control/faults", method: "DELETE").status == 204)
            #expect(try await control.request("/control/faults/reviews", method: "PUT", body: #"{"slowFirstEvery":5,"slowFirstMs":600000}"#).status == 204)
            let slowAgain = try await RawClient.connect(port: port)
            try await slowAgain.sendRequest("/products/p15/reviews")
            await eventually(.live) { stub.stats().slowFirstCalls == 2 }
            #expect(try await slowAgain.hasPendingBytes() == false)
            slowAgain.close()
            await eventually(.live) { stub.stats().abandoned == 2 }
        }
    }

    @Test func headersAndEnvironmentSetItToo() async throws {
        let configuration = try StubConfiguration.fromEnvironment(["STUB_SLOW_FIRST_EVERY": "3", "STUB_SLOW_FIRST_MS": "600000"])
        try await withStub(configure: { $0.defaultFaults = configuration.defaultFaults }) { stub, port in
            let slow = try await RawClient.connect(port: port)
            try await slow.sendRequest("/products/p3/suggested")
            await eventually(.live) { stub.stats().slowFirstCalls == 1 }
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/products/p3/suggested").status == 200)
            // A header turns it off for one request: p6's first call is fast and not remembered.
            #expect(try await client.request("/products/p6", headers: [("X-Stub-Slow-First-Every", "0")]).status == 200)
            #expect(stub.stats().slowFirstCalls == 1)
            // A header picks every product and shortens the delay for its request.
            let short = try await client.request("/products/p7", headers: [("X-Stub-Slow-First-Every", "1"), ("X-Stub-Slow-First-Ms", "1")])
            #expect(short.status == 200)
            #expect(stub.stats().slowFirstCalls == 2)
            slow.close()
        }
    }
}
