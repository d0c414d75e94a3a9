// swift-tools-version:6.2
import PackageDescription

// The server (`flint serve`), the `flint` command and the tests that need a live server. The client (FlintAuth)
// and the wire types are the package at the repository's root, which this one uses by path.
let package = Package(
    name: "FlintServer",
    // Hummingbird's floor.
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "FlintServer", targets: ["FlintServer"]),
        .executable(name: "flint", targets: ["flint"]),
    ],
    traits: [
        // Off by default: swift-otel takes minutes to build. `swift build --traits OTLP` gives `flint serve
        // --otlp-endpoint`.
        .trait(name: "OTLP", description: "Export spans over OTLP/HTTP with swift-otel (flint serve --otlp-endpoint)."),
    ],
    dependencies: [
        .package(name: "Flint", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context.git", from: "1.0.0"),
        // Only with the OTLP trait; its HTTP exporter only (gRPC would add grpc-swift to the build).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The system SQLite library (Debian: libsqlite3-dev).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The system OpenSSL 3 libcrypto (Debian: libssl-dev), on Linux only: it signs RS256 about twice as fast as
        // swift-crypto's BoringSSL on these machines. Elsewhere swift-crypto signs.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // xmlsec1 with its OpenSSL engine, and libxml2 (Debian: libxmlsec1-dev), on Linux only: SAML responses'
        // signatures and encrypted assertions (SAML/XML).
        .systemLibrary(name: "CXMLSec", pkgConfig: "xmlsec1-openssl", providers: [.apt(["libxmlsec1-dev"])]),
        .target(
            name: "FlintServer",
            dependencies: [
                .product(name: "FlintWire", package: "Flint"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // HTTPS with HTTP/2 (ALPN) on the public listener.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                // bcrypt, for imported password hashes.
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                "CSQLite",
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                .target(name: "CXMLSec", condition: .when(platforms: [.linux])),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ]
        ),
        .executableTarget(
            name: "flint",
            dependencies: [
                "FlintServer",
                .product(name: "FlintWire", package: "Flint"),
                // The admin client of --server, with AsyncHTTPClient as its transport.
                .product(name: "FlintAdminCore", package: "Flint"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The server's HTTP client, for --server (Foundation's URLSession would load libcurl into every flint process).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
            ]
        ),
        // Shared test helpers: in-process servers, database URLs, fake clocks.
        .target(
            name: "FlintTestSupport",
            dependencies: [
                "FlintServer",
                .product(name: "FlintWire", package: "Flint"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ],
            path: "Tests/FlintTestSupport"
        ),
        .testTarget(
            name: "FlintServerTests",
            dependencies: [
                "FlintServer", "FlintTestSupport", .product(name: "FlintWire", package: "Flint"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ]
        ),
        // FlintAdmin's tests: against live servers in both modes, forged tokens and a fake of Google's endpoints.
        .testTarget(
            name: "FlintAdminTests",
            dependencies: [
                .product(name: "FlintAdmin", package: "Flint"), .product(name: "FlintWire", package: "Flint"),
                .product(name: "FlintAuth", package: "Flint"), "FlintServer", "FlintTestSupport",
            ]
        ),
        // FlintAuth's tests: against a fake backend, and against a live in-process server. They live here, with the
        // server, so that the client package at the root keeps no dependencies.
        .testTarget(
            name: "FlintAuthTests",
            dependencies: [
                .product(name: "FlintAuth", package: "Flint"), .product(name: "FlintWire", package: "Flint"),
                "FlintServer", "FlintTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
