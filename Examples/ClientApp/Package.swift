// swift-tools-version:6.0
import PackageDescription

// An app at FirebaseAuth's platform floors that adds FlintAuth the way an app team does (here by path, there by the
// repository's URL). CI builds it and checks that resolving it pins no package at all: scripts/check-client-app.sh.
let package = Package(
    name: "ClientApp",
    platforms: [.iOS(.v15), .macOS(.v11)],
    dependencies: [.package(name: "Flint", path: "../..")],
    targets: [
        .executableTarget(name: "ClientApp", dependencies: [.product(name: "FlintAuth", package: "Flint")]),
    ]
)
