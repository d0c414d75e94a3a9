// swift-tools-version:6.0
import PackageDescription

// FlintAdmin's resource-server side for Hummingbird 2: a middleware that lets through only requests whose OAuth access
// token FlintAdmin verifies, and the RFC 9728 metadata route. A package of its own, so that the root package (FlintAuth,
// FlintAdmin) keeps no dependencies; an app adds it by path or by the repository's URL, as Examples/MCPServer does.
let package = Package(
    name: "FlintAdminHummingbird",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "FlintAdminHummingbird", targets: ["FlintAdminHummingbird"]),
    ],
    dependencies: [
        .package(name: "Flint", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .target(name: "FlintAdminHummingbird", dependencies: [
            .product(name: "FlintAdminCore", package: "Flint"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        // The middleware and the metadata route in Hummingbird's test client, against tokens made by
        // Server/Tests/python/forge_access_tokens.py and keys served by a fake transport: no server.
        .testTarget(name: "FlintAdminHummingbirdTests", dependencies: [
            "FlintAdminHummingbird",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
    ]
)
