// swift-tools-version:6.0
import PackageDescription

// An MCP-style resource server on Hummingbird: a JSON-RPC endpoint whose tools need OAuth access tokens of a Flint
// project's provider, checked by FlintAdminHummingbird's middleware, and the protected-resource metadata (RFC 9728)
// that sends MCP clients to Flint for them. CI runs it against a live Flint server: scripts/check-mcp-example.sh.
let package = Package(
    name: "MCPServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Flint", path: "../.."),
        .package(path: "../../Integrations/FlintAdminHummingbird"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(name: "MCPServer", dependencies: [
            .product(name: "FlintAdmin", package: "Flint"),
            .product(name: "FlintWire", package: "Flint"),
            .product(name: "FlintAdminHummingbird", package: "FlintAdminHummingbird"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
    ]
)
