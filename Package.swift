// swift-tools-version:6.0
import Foundation
import PackageDescription

/// `make test-tsan` sets TSAN_LOCKS=1: locks become pthread mutexes, which ThreadSanitizer sees.
let lockSettings: [SwiftSetting] = ProcessInfo.processInfo.environment["TSAN_LOCKS"] == "1" ? [.define("TSAN_LOCKS")] : []

// Dependency direction (a module imports only those above it):
// CLibUV, CEdgeTriggered → EventLoop → HTTP1, JSON → HTTPServer / HTTPClient → App → executables.
// JSON (the strict reader and the byte writer) is pure and imports nothing: the domain, the
// server's problem documents, the stub and the logger all read and write JSON through it.
// ProductDetails is pure domain logic and imports neither sockets nor libuv.
// Timekeeping (TimeSource, ManualTimeSource) imports only Locking: the one time line for everything
// that waits or expires (domain, server, client, pool); EventLoop's LoopTimeSource is the
// production one, whose sleep is a libuv timer.
// RESP (Redis protocol encoding and reply parsing) is pure too: like HTTP1 it imports nothing,
// so scripts/fuzz.sh compiles it alone.
// Redis is the one Redis client: RESP, EventLoop, Locking, Timekeeping → Redis → Fleet,
// App. It takes a parsed `RedisURL`: App reads REDIS_URL, with HTTP1's percent-decoding. Its
// connection state machines are pure (no sockets, no clocks), each beside the shell that drives
// it on EventLoop's Swift API (sockets, timers, the resolver), never libuv's C API.
// CIsal, CDeflate → Gzip: Debian's ISA-L (libisal-dev: igzip, for stored pages) and libdeflate
// (libdeflate-dev: for answers compressed on the fly), reached only through Gzip, which compresses
// whole bodies with state set up once and reused; it imports nothing else. CZlib → GzipInflating:
// zlib (zlib1g-dev), the tests' gzip decoder, independent of the compressor and in no shipped
// binary.
// Fleet is fleet mode, one module: the shared cache's rules (the lookup machine, the invalidation
// log, the time budget), its load path (`FleetLoads`, the service's `LoadPath` in fleet mode) and
// its store on Redis (key layout, scripts, page format). It imports ProductDetails and Redis, and
// runs commands through Redis's `RedisCommandRunner`, which the client conforms to and tests fake;
// App wires it. ProductDetails knows only the seam (`LoadPath`) and never imports it.
// Logging (the JSON log: lines formatted on the caller's thread, written by a thread of its own)
// imports JSON, Locking, ProductDetails (trace ids) and Timekeeping; App, Fleet and the
// executable log through it.
let package = Package(
    name: "product-details",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "product-details", targets: ["product-details"]),
        .executable(name: "catalog-stub", targets: ["catalog-stub"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CIsal",
            pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]
        ),
        // Defines epoll_ctl and epoll_wait, which take the place of the C library's: see EdgeTriggered.c.
        .target(name: "CEdgeTriggered"),
        .target(name: "Locking", swiftSettings: lockSettings),
        .target(name: "EventLoop", dependencies: ["CLibUV", "CEdgeTriggered", "Locking", "Timekeeping"]),
        .target(name: "HTTP1"),
        .target(name: "JSON"),
        .target(name: "Gzip", dependencies: ["CDeflate", "CIsal"]),
        .target(name: "RESP"),
        .target(name: "Redis", dependencies: ["RESP", "EventLoop", "Locking", "Timekeeping"]),
        .target(name: "HTTPServer", dependencies: ["EventLoop", "HTTP1", "JSON", "Locking", "Timekeeping"]),
        .target(name: "HTTPClient", dependencies: ["EventLoop", "HTTP1", "Timekeeping"]),
        .target(name: "Timekeeping", dependencies: ["Locking"]),
        .target(name: "ProductDetails", dependencies: ["JSON", "Locking", "Timekeeping"]),
        .target(name: "Metrics", dependencies: ["Locking", "Timekeeping"]),
        .target(name: "Logging", dependencies: ["JSON", "Locking", "ProductDetails", "Timekeeping"]),
        .target(name: "Fleet", dependencies: ["EventLoop", "Locking", "Logging", "Metrics", "ProductDetails", "Redis", "RESP", "Timekeeping"]),
        .target(name: "CatalogStub", dependencies: ["EventLoop", "HTTP1", "HTTPServer", "JSON", "Locking", "Timekeeping"]),
        .target(name: "App", dependencies: ["EventLoop", "HTTP1", "JSON", "HTTPServer", "HTTPClient", "ProductDetails", "Timekeeping", "CatalogStub", "Metrics", "Locking", "Logging", "Fleet", "Redis", "Gzip"]),
        .executableTarget(name: "product-details", dependencies: ["App", "Logging"]),
        .executableTarget(name: "catalog-stub", dependencies: ["CatalogStub", "EventLoop", "HTTPServer", "JSON"]),
        // Test helpers that import nothing but Testing (`eventually`, `SeededRandom`), so the pure suites can share them.
        .target(name: "PureTestSupport", path: "Tests/PureTestSupport"),
        // The tests read gzip members back with zlib, as a client would: never linked into a binary.
        .target(name: "GzipInflating", dependencies: ["Gzip", "CZlib"], path: "Tests/GzipInflating"),
        // Test helpers shared across suites: for the socket-level ones a raw client, a live server or
        // cluster, a gate; for the service's (ProductDetailsTests, FleetTests) its fakes and harness.
        .target(name: "TestSupport", dependencies: ["EventLoop", "Fleet", "HTTP1", "HTTPServer", "Locking", "ProductDetails", "PureTestSupport", "RESP", "Timekeeping"], path: "Tests/TestSupport"),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1"]),
        .testTarget(name: "GzipTests", dependencies: ["Gzip", "GzipInflating", "PureTestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "PureTestSupport"]),
        .testTarget(name: "RESPTests", dependencies: ["RESP", "TestSupport", "PureTestSupport"]),
        // Unit/ steps the machines by hand and stays clockless; Live/ runs the client on real sockets.
        .testTarget(name: "RedisTests", dependencies: ["Redis", "RESP", "EventLoop", "Locking", "TestSupport", "Timekeeping", "PureTestSupport"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "Locking", "CLibUV", "TestSupport", "Timekeeping"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "EventLoop", "HTTP1", "Locking", "Timekeeping", "TestSupport", "PureTestSupport"]),
        .testTarget(name: "ProductDetailsTests", dependencies: ["ProductDetails", "JSON", "Locking", "Timekeeping", "TestSupport", "PureTestSupport"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet", "ProductDetails", "Redis", "RESP", "Timekeeping", "Locking", "TestSupport", "PureTestSupport"]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(name: "CatalogStubTests", dependencies: ["CatalogStub", "HTTPServer", "EventLoop", "HTTP1", "Timekeeping", "TestSupport", "PureTestSupport"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer", "EventLoop", "HTTP1", "Locking", "Timekeeping", "TestSupport", "PureTestSupport"]),
        .testTarget(name: "AppTests", dependencies: ["App", "JSON", "HTTPServer", "HTTPClient", "EventLoop", "HTTP1", "ProductDetails", "CatalogStub", "Metrics", "Locking", "Timekeeping", "TestSupport", "PureTestSupport", "Fleet", "Logging", "Redis", "RESP", "Gzip", "GzipInflating"]),
    ],
    swiftLanguageModes: [.v6]
)

// Nonisolated async functions run on their caller's executor instead of hopping to the generic
// one (SE-0461). On the loop every such hop was a `swift_task_switch` that locked the task's
// status to find its executor preference (the count it saves: bench/HISTORY.md).
// Not for the executables: with it, Swift 6.3's debug build of an `async` `@main` passed a
// garbage caller isolation down the call chain (a crash in the first `await`); they only call in.
for target in package.targets where (target.type == .regular && target.name != "CEdgeTriggered") || target.type == .test {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
}

// Release builds leave out the run-time exclusivity checks (`swift_beginAccess` around each
// access to a class's stored `var` that the optimizer cannot prove alone: dozens per answer, on
// the connections' state machines above all). The static checks stay, and debug builds, which
// run every test (and the sanitizer builds), keep the run-time ones: an overlapping access traps
// there. The gain is measured in bench/HISTORY.md.
for target in package.targets where (target.type == .regular && target.name != "CEdgeTriggered") || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
}
