import CatalogStub
import Foundation
import HTTP1
import PureTestSupport
import Testing
import TestSupport

/// Each fault over real sockets, scripted by header, Swift API, control plan or environment.
@Suite struct StubFaultTests {
    static let paths = ["/products/p5", "/products/p5/reviews", "/products/p5/suggested"]

    @Test func errorRateOneFailsEveryRequestWithRetryAfter() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(errorRate: 1, retryAfterSeconds: 2), for: .all)
            let client = try await RawClient.connect(port: port)
            for _ in 0..<4 {
                for path in Self.paths {
                    let response = try await client.request(path)
                    #expect(response.status == 503)
                    #expect(response.header("Retry-After") == "2")
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect((try response.json() as? [String: Any])?["status"] as? Int == 503)
                }
            }
            #expect(stub.stats() == StubStats(product: 4, reviews: 4, suggested: 4, openConnections: 1))
        }
    }

    @Test func errorStatusAndNoRetryAfterUnlessAsked() async throws {
        try await withStub { _, port in
            let client = try await RawClient.connect(port: port)
            let response = try await client.request("/products/p5", headers: [("X-Stub-Error-Rate", "1"), ("X-Stub-Error-Status", "429")])
            #expect(response.status == 429)
            #expect(response.header("Retry-After") == nil)
        }
    }

    @Test func errorRateZeroNeverFails() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(errorRate: 0), for: .product)
            let client = try await RawClient.connect(port: port)
            for _ in 0..<20 {
                #expect(try await client.request("/products/p5").status == 200)
            }
        }
    }

    @Test func errorRateHalfFailsExactlyHalfInTurn() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(errorRate: 0.5), for: .reviews)
            let client = try await RawClient.connect(port: port)
            var statuses: [Int] = []
            for _ in 0..<10 {
                statuses.append(try await client.request("/products/p5/reviews").status)
            }
            #expect(statuses.filter { $0 == 503 }.count == 5)
            #expect(statuses.filter { $0 == 200 }.count == 5)
            #expect(zip(statuses, statuses.dropFirst()).allSatisfy { $0 != $1 })
        }
    }

    @Test func timesTwoAppliesTwiceThenReverts() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(errorRate: 1, errorStatus: 500), for: .product, times: 2)
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/products/p5/reviews").status == 200)
            #expect(try await client.request("/products/p5").status == 500)
            #expect(try await client.request("/products/p5").status == 500)
            #expect(try await client.request("/products/p5").status == 200)
            #expect(try await client.request("/products/p5").status == 200)
        }
    }

    @Test func clearFaultsRestoresHealth() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(errorRate: 1), for: .all)
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/products/p5").status == 503)
            stub.clearFaults()
            #expect(try await client.request("/products/p5").status == 200)
        }
    }

    @Test(arguments: paths)
    func malformedJSONDoesNotParse(path: String) async throws {
        try await withStub { stub, port in
            let client = try await RawClient.connect(port: port)
            let response = try await client.request(path, headers: [("X-Stub-Malformed", "true")])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(!response.body.isEmpty)
            #expect(throws: (any Error).self) { try response.json() }
            // The stream stays usable: the broken body was framed correctly.
            #expect(try await client.request(path).status == 200)
        }
    }

    @Test(arguments: paths)
    func oversizedIsValidJSONOfAtLeastFourMiB(path: String) async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(oversized: true), for: .all)
            let client = try await RawClient.connect(port: port)
            let response = try await client.request(path)
            #expect(response.status == 200)
            #expect(response.body.count >= 4 << 20)
            #expect(response.body.count < (4 << 20) + 64 * 1024)
            let document = try response.json()
            if path.hasSuffix("/reviews") || path.hasSuffix("/suggested") {
                #expect(document is [[String: Any]])
            } else {
                #expect((document as? [String: Any])?["id"] as? String == "p5")
            }
        }
    }

    @Test func oversizedBytesCanBeChosen() async throws {
        try await withStub { _, port in
            let client = try await RawClient.connect(port: port)
            let response = try await client.request("/products/p5/suggested", headers: [("X-Stub-Oversized", "1"), ("X-Stub-Oversized-Bytes", "100000")])
            #expect(response.body.count >= 100_000)
            #expect(response.body.count < 200_000)
            let products = try #require(try response.json() as? [[String: Any]])
            #expect(!products.contains { $0["id"] as? String == "p5" })
        }
    }

    @Test(arguments: paths)
    func resetMidBodyCutsTheAnswerShort(path: String) async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(resetMidBody: true), for: .all)
            let client = try await RawClient.connect(port: port)
            try await client.sendRequest(path)
            // Reads to the end of the stream: the stub reset (or closed) it mid-body.
            let (bytes, _) = try await client.readUntilClosed()
            let end = try #require(bytes.firstRange(of: [13, 10, 13, 10]))
            let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200"))
            let declared = try #require(head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") })
            let length = try #require(Int(declared.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
            let whole = path.hasSuffix("/reviews") ? stub.catalog.reviewsJSON("p5")
                : path.hasSuffix("/suggested") ? stub.catalog.suggestionsJSON("p5") : stub.catalog.productJSON("p5")
            #expect(length == whole?.count)
            #expect(bytes.count - end.upperBound < length)
            #expect(stub.stats().abandoned == 0)
        }
    }

    @Test func hangUntilTheClientLeavesCountsAbandoned() async throws {
        try await withStub { stub, port in
            let client = try await RawClient.connect(port: port)
            try await client.sendRequest("/products/p5/reviews", headers: [("X-Stub-Hang", "true")])
            await eventually(.live) { stub.stats().reviews == 1 }
            #expect(stub.stats().abandoned == 0)
            client.close()
            await eventually(.live) { stub.stats().abandoned == 1 }
        }
    }

    @Test func scriptedHangIsAbandonedOnShutdownToo() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(hang: true), for: .product, times: 1)
            let hanging = try await RawClient.connect(port: port)
            try await hanging.sendRequest("/products/p5")
            await eventually(.live) { stub.stats().product == 1 }
            let other = try await RawClient.connect(port: port)
            #expect(try await other.request("/products/p5").status == 200)
            hanging.close()
            await eventually(.live) { stub.stats().abandoned == 1 }
        }
    }

    /// One loop, so the hung handlers share it with the requests that must still answer.
    @Test func hangOnOneRouteLeavesTheOtherRoutesAnswering() async throws {
        try await withStub(loops: 1) { stub, port in
            stub.setFaults(FaultPlan(hang: true), for: .reviews)
            var hanging: [RawClient] = []
            for index in 1...4 {
                let client = try await RawClient.connect(port: port)
                try await client.sendRequest("/products/p\(index)/reviews")
                hanging.append(client)
            }
            await eventually(.live) { stub.stats().reviews == 4 }
            let client = try await RawClient.connect(port: port)
            for index in 1...4 {
                #expect(try await client.request("/products/p\(index)").status == 200)
                #expect(try await client.request("/products/p\(index)/suggested").status == 200)
            }
            for held in hanging {
                #expect(try await held.hasPendingBytes() == false)
                held.close()
            }
            await eventually(.live) { stub.stats().abandoned == 4 }
            #expect(stub.stats().abandonedProduct == 0)
        }
    }

    @Test func latencyStillAnswers() async throws {
        try await withStub { _, port in
            let client = try await RawClient.connect(port: port)
            let response = try await client.request("/products/p5", headers: [("X-Stub-Latency-Ms", "20")])
            #expect(response.status == 200)
        }
    }

    @Test func aClientLeavingDuringLatencyIsAbandoned() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(latencyMs: 600_000), for: .suggested)
            let client = try await RawClient.connect(port: port)
            try await client.sendRequest("/products/p5/suggested")
            await eventually(.live) { stub.stats().suggested == 1 }
            client.close()
            await eventually(.live) { stub.stats().abandoned == 1 }
        }
    }

    @Test func headerOverridesControlPlan() async throws {
        try await withStub { stub, port in
            stub.setFaults(FaultPlan(errorRate: 1), for: .all)
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/products/p5", headers: [("X-Stub-Error-Rate", "0")]).status == 200)
            #expect(try await client.request("/products/p5").status == 503)
        }
    }

    @Test func controlPlanOverridesEnvironmentDefault() async throws {
        let configuration = try StubConfiguration.fromEnvironment(["STUB_ERROR_RATE": "1", "STUB_ERROR_STATUS": "502"])
        try await withStub(configure: { $0.defaultFaults = configuration.defaultFaults }) { stub, port in
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/products/p5").status == 502)
            stub.setFaults(FaultPlan(), for: .product, times: 1)
            #expect(try await client.request("/products/p5").status == 200)
            #expect(try await client.request("/products/p5").status == 502)
            #expect(try await client.request("/products/p5", headers: [("X-Stub-Error-Rate", "0.0")]).status == 200)
        }
    }

    @Test func badFaultHeaderIs400() async throws {
        try await withStub { _, port in
            let client = try await RawClient.connect(port: port)
            let response = try await client.request("/products/p5", headers: [("X-Stub-Hang", "perhaps")])
            #expect(response.status == 400)
            #expect(response.text.contains("X-Stub-Hang"))
        }
    }
}
