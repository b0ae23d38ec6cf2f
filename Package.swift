// swift-tools-version:6.0
import PackageDescription

// Dependency direction (a module imports only those above it):
// CLibUV → EventLoop → HTTP1 → HTTPServer / HTTPClient → App → executables.
// ProductDetails is pure domain logic and imports neither sockets nor libuv.
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
        .target(name: "EventLoop", dependencies: ["CLibUV"]),
        .target(name: "HTTP1"),
        .target(name: "HTTPServer", dependencies: ["EventLoop", "HTTP1"]),
        .target(name: "HTTPClient", dependencies: ["EventLoop", "HTTP1"]),
        .target(name: "ProductDetails"),
        .target(name: "Metrics"),
        .target(name: "CatalogStub", dependencies: ["EventLoop", "HTTP1", "HTTPServer"]),
        .target(name: "App", dependencies: ["EventLoop", "HTTP1", "HTTPServer", "HTTPClient", "ProductDetails", "CatalogStub", "Metrics"]),
        .executableTarget(name: "product-details", dependencies: ["App"]),
        .executableTarget(name: "catalog-stub", dependencies: ["CatalogStub", "EventLoop", "HTTPServer"]),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "EventLoop", "HTTP1"]),
        .testTarget(name: "ProductDetailsTests", dependencies: ["ProductDetails"]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(name: "CatalogStubTests", dependencies: ["CatalogStub", "HTTPServer", "EventLoop", "HTTP1"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer", "EventLoop", "HTTP1"]),
        .testTarget(name: "AppTests", dependencies: ["App", "HTTPServer", "HTTPClient", "EventLoop", "HTTP1", "ProductDetails", "CatalogStub", "Metrics"]),
    ],
    swiftLanguageModes: [.v6]
)
