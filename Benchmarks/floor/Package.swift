// swift-tools-version:6.2
import PackageDescription

// The floor: a minimal Hummingbird server doing the same crypto and store work as Flint's operations and nothing
// else, against which Benchmarks/run.sh judges Flint's CPU per request (README.md beside this file). It names
// Flint's own package versions (Server/Package.swift) and reaches SQLite, OpenSSL and swift-crypto the same way.
let package = Package(
    name: "Floor",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
    ],
    targets: [
        // The system SQLite library (Debian: libsqlite3-dev), as Flint links it.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The system OpenSSL 3 libcrypto (Debian: libssl-dev), which signs and verifies Flint's RS256 on Linux.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .executableTarget(
            name: "floor",
            dependencies: [
                "CSQLite", "COpenSSL",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // Firebase scrypt as Flint computes it (KDF.Scrypt and AES-CTR over BoringSSL).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
    ]
)
