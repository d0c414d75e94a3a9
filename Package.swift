// swift-tools-version:6.0
import PackageDescription

// The client: FlintAuth (FirebaseAuth's API shape) and the wire types it shares with the server; and FlintAdmin, the
// Admin SDK for server-side Swift. No package dependencies and Firebase's own platform floors, so an app adds
// FlintAuth (or a server FlintAdmin) without pinning anything else. The server, the `flint` command and their tests
// are the package in `Server/`.
let package = Package(
    name: "Flint",
    // iOS 15 and macOS 11 are FirebaseAuth's floors (Mac Catalyst comes with iOS). tvOS and watchOS are left out:
    // no Apple SDK is on the machines that build and test this, so nothing shows that every path compiles there.
    platforms: [.iOS(.v15), .macOS(.v11), .visionOS(.v1)],
    products: [
        .library(name: "FlintAuth", targets: ["FlintAuth"]),
        .library(name: "FlintWire", targets: ["FlintWire"]),
        .library(name: "FlintAdmin", targets: ["FlintAdmin"]),
        .library(name: "FlintAdminCore", targets: ["FlintAdminCore"]),
    ],
    targets: [
        // Wire types shared by server and SDK. Imports nothing of ours.
        .target(name: "FlintWire"),
        // The client SDK: Foundation only (plus Security, UIKit or AppKit, and SafariServices where they exist).
        .target(name: "FlintAuth", dependencies: ["FlintWire", "FlintHTTP"]),
        // Foundation's URLSession behind a protocol, shared by FlintAuth and FlintAdmin.
        .target(name: "FlintHTTP"),
        // The system OpenSSL 3 libcrypto (Debian: libssl-dev), FlintAdmin's RS256 on Linux. It is built only for
        // FlintAdminCore, so an app with FlintAuth alone never looks for it; Apple platforms use Security instead.
        .systemLibrary(name: "CFlintAdminCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The Admin SDK: tokens, users, tenants and configs over the Admin REST API, for Firebase, Flint or an emulator.
        // FlintAdminCore sends its requests through a transport its caller gives; FlintAdmin is it with URLSession's.
        .target(name: "FlintAdminCore", dependencies: [
            "FlintWire", .target(name: "CFlintAdminCrypto", condition: .when(platforms: [.linux])),
        ]),
        .target(name: "FlintAdmin", dependencies: ["FlintAdminCore", "FlintHTTP"]),
        .testTarget(name: "FlintWireTests", dependencies: ["FlintWire"]),
        // FlintAdmin's tests that need no server; those against live servers are in `Server/`.
        .testTarget(name: "FlintAdminUnitTests", dependencies: ["FlintAdminCore", "FlintWire"]),
        // FirebaseAuth's documentation snippets with `import FlintAuth`: they must compile in Swift 6 mode.
        .testTarget(name: "FlintAuthCompatibilityTests", dependencies: ["FlintAuth"]),
        // FlintAuth's tests that need no server and none of the server package's helpers.
        .testTarget(name: "FlintAuthUnitTests", dependencies: ["FlintAuth", "FlintWire"]),
        // FlintAuth's other tests are in `Server/`: many run against a live server, and they share helpers.
    ]
)
