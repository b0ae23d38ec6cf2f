import CatalogStub
import EventLoop
import Foundation
import HTTPServer
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// `catalog-stub`: the products, reviews and suggestions upstreams in one process, for demos,
/// tests and benchmarks. Configured by environment; exits 0 on SIGTERM or SIGINT.
@main
struct Main {
    static let usage = """
        catalog-stub: the three upstream services of a product-detail page, with fault injection.

        Environment (unset or empty = default):
          HOST                  address to bind (127.0.0.1)
          PORT                  port, 0 = any free port (8081)
          LOOPS                 event loops / threads (1)
          CATALOG_SIZE          products p1…pN (10000)
          STUB_SEED             seed of the catalog and of error-rate decisions (42)
          STUB_LATENCY_MS       added delay per request, ms (0)
          STUB_ERROR_RATE       share of requests answered with an error, 0…1 (0)
          STUB_ERROR_STATUS     status of those errors, 400…599 (503)
          STUB_RETRY_AFTER      Retry-After seconds on those errors (none)
          STUB_HANG             never answer until the client leaves (false)
          STUB_RESET            reset the connection after half the body (false)
          STUB_MALFORMED        truncated JSON body (false)
          STUB_OVERSIZED        JSON body of STUB_OVERSIZED_BYTES or more (false)
          STUB_OVERSIZED_BYTES  size of oversized bodies (4194304)
          STUB_SLOW_FIRST_EVERY N: slow first request for every Nth product, 0 = off (0)
          STUB_SLOW_FIRST_MS    added delay of those first requests, ms (800)
          STUB_WORKERS          workers per route (product, reviews, suggested), 0 = no limit (0)
          STUB_SERVICE_MS       time each request holds one of its route's workers, ms (0)

        Slow first requests: the first request on a route for a product whose ordinal is a
        multiple of N waits; later ones for it do not. The ordinal is n for an id p<n>, else the
        64-bit FNV-1a hash of the id's bytes. The latest 65536 (route, product) pairs slowed are
        remembered; past that the oldest one's next request is slow again.

        Workers: each route has STUB_WORKERS of its own. A request holds one for STUB_SERVICE_MS
        (after its latency and slow-first delays) and is then answered; beyond them it waits in
        the route's FIFO queue. Like a thread-pool backend the stub never drops that work: a
        request whose client has gone keeps its turn and its worker's whole time, and counts as
        served for a caller that had gone. GET /stats gives per route workers, busy, queued,
        served and servedForGone. Both 0 (the default): no workers, answers as soon as the faults
        allow; STUB_SERVICE_MS alone: that delay on every request, with no limit.

        Per request: headers X-Stub-Latency-Ms, X-Stub-Error-Rate, X-Stub-Error-Status,
        X-Stub-Retry-After, X-Stub-Hang, X-Stub-Reset, X-Stub-Malformed, X-Stub-Oversized,
        X-Stub-Oversized-Bytes, X-Stub-Slow-First-Every, X-Stub-Slow-First-Ms.
        Scripted: PUT /control/faults/{product|reviews|suggested|all} with a JSON body such as
        {"errorRate":1,"retryAfterSeconds":2,"times":3} (keys: latencyMs, errorRate, errorStatus,
        retryAfterSeconds, hang, reset, malformed, oversized, oversizedBytes, slowFirstEvery,
        slowFirstMs, times); DELETE /control/faults clears them and forgets the products seen.

        Product changes: PUT /control/products/{id} with {"priceInCents":1299,"name":"Teal Chair"}
        (either or both; a member left out is the catalog's own) answers 200 with the product and
        shows in its answer and in every suggestion list that includes it, until
        DELETE /control/products/{id} (one) or DELETE /control/products (all; not /control/faults).
        Price 0...1000000000, name 1...200 bytes; at most 65536 products changed at once.

        Routes: GET /products/{id}, /products/{id}/reviews, /products/{id}/suggested,
        GET|DELETE /stats (requests per route, abandoned, slowFirstCalls, workers), GET /healthz.
        """

    static func main() async {
        if CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(usage)
            return
        }
        let environment = ProcessInfo.processInfo.environment
        var configuration: StubConfiguration
        let loops: Int
        do {
            configuration = try StubConfiguration.fromEnvironment(environment)
            loops = try loopCount(environment["LOOPS"])
        } catch {
            fail("catalog-stub: \(error)")
        }
        configuration.shutdownGrace = .seconds(1)

        let group: EventLoopGroup
        do {
            group = try EventLoopGroup(loopCount: loops)
        } catch {
            fail("catalog-stub: cannot start event loops: \(error)")
        }
        let stub = CatalogStub(group: group, configuration: configuration)
        let signals = SignalWaiter()
        do {
            try await signals.watch(on: group.loops[0], for: [SIGTERM, SIGINT])
            let port = try await stub.start()
            emit(#"{"msg":"catalog-stub listening","host":\#(quoted(configuration.host)),"port":\#(port),"catalogSize":\#(configuration.catalogSize),"loops":\#(loops),"workers":\#(configuration.workersPerRoute),"serviceMs":\#(configuration.serviceTime.wholeMilliseconds)}"#)
        } catch {
            group.shutdown()
            fail("catalog-stub: cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        let signal = await signals.wait()
        emit(#"{"msg":"catalog-stub stopping","signal":\#(signal)}"#)
        await stub.shutdown()
        await signals.stop()
        group.shutdown()
    }

    static func loopCount(_ text: String?) throws -> Int {
        guard let text, !text.isEmpty else { return 1 }
        guard let count = Int(text), (1...256).contains(count) else {
            throw StubConfigurationError(variable: "LOOPS", message: "must be an integer from 1 to 256, got \"\(text)\"")
        }
        return count
    }

    /// One line to stdout, written at once (a parent process may be waiting for it on a pipe).
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func quoted(_ text: String) -> String {
        var writer = JSONBytesWriter(reservingCapacity: text.utf8.count + 2)
        writer.string(text)
        return String(decoding: writer.release(), as: UTF8.self)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}
