// swift-tools-version:6.0
import PackageDescription

// A Hummingbird API that trusts FlintAuth's (or FirebaseAuth's) ID tokens: FlintAdmin verifies them, revocation
// included, and manages users. It adds FlintAdmin the way a server team does (here by path, there by the repository's
// URL): FlintAdmin brings no package of its own. CI runs it against a live Flint server: scripts/check-admin-example.sh.
let package = Package(
    name: "AdminServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Flint", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(name: "AdminServer", dependencies: [
            .product(name: "FlintAdmin", package: "Flint"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
    ]
)
