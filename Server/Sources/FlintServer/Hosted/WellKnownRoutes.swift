import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The files that let the project's apps claim the server's links, so an emailed `/__/auth/…` link
/// opens the app instead of the browser (the default project's apps, in emulator mode too):
///
/// - `GET /.well-known/apple-app-site-association`: universal links for `settings.apps.iOS`, and their
///   `webcredentials`, so the apps may use passkeys of a relying party at this host.
/// - `GET /.well-known/assetlinks.json`: Android app links for `settings.apps.android`.
///
/// Both are JSON served directly (Apple's CDN and Android refuse redirects).
struct WellKnownRoutes: Sendable {
    let projects: ProjectDirectory
    let defaultProjectID: String

    static let appleAppSiteAssociationPath = "/.well-known/apple-app-site-association"
    static let assetLinksPath = "/.well-known/assetlinks.json"
    /// The paths the apps claim: every hosted auth page (`/__/auth/action`, `/__/auth/links`).
    static let claimedPaths = "/__/auth/*"

    /// Public JSON files Apple's and Google's crawlers fetch: an object for Apple, a list of statements for Android.
    private static let appleContract = EndpointContract(credentials: .none, response: .anyJSONObject)
    private static let androidContract = EndpointContract(
        credentials: .none, response: .json(SchemaSource { _ in ["type": "array", "items": ["type": "object"]] }))

    var endpoints: [Endpoint] {
        let routes = self
        return [
            Endpoint(method: .get, paths: [Self.appleAppSiteAssociationPath], contract: Self.appleContract) { _, _ in
                try Self.json(Self.appleAppSiteAssociation(try await routes.settings().apps))
            },
            Endpoint(method: .get, paths: [Self.assetLinksPath], contract: Self.androidContract) { _, _ in
                try Self.json(Self.assetLinks(try await routes.settings().apps))
            },
        ]
    }

    private func settings() async throws -> ProjectSettings {
        try await projects.ensureProject(defaultProjectID).settings
    }

    struct AppleAppSiteAssociation: Encodable, Equatable {
        struct AppLinks: Encodable, Equatable {
            var apps: [String] = []
            var details: [Detail]
        }

        struct Detail: Encodable, Equatable {
            var appID: String
            var appIDs: [String]
            var paths: [String]
            var components: [[String: String]]
        }

        struct WebCredentials: Encodable, Equatable {
            var apps: [String]
        }

        var applinks: AppLinks
        var webcredentials: WebCredentials
    }

    /// Both the legacy (`appID`, `paths`) and the iOS 13+ (`appIDs`, `components`) forms.
    static func appleAppSiteAssociation(_ apps: ProjectSettings.Apps) -> AppleAppSiteAssociation {
        let appIDs = apps.iOS.map { "\($0.teamID).\($0.bundleID)" }
        return AppleAppSiteAssociation(
            applinks: .init(details: appIDs.map { appID in
                .init(appID: appID, appIDs: [appID], paths: [claimedPaths], components: [["/": claimedPaths]])
            }),
            webcredentials: .init(apps: appIDs))
    }

    struct AssetLink: Encodable, Equatable {
        struct Target: Encodable, Equatable {
            var namespace = "android_app"
            var packageName: String
            var sha256CertFingerprints: [String]

            enum CodingKeys: String, CodingKey {
                case namespace, packageName = "package_name", sha256CertFingerprints = "sha256_cert_fingerprints"
            }
        }

        var relation = ["delegate_permission/common.handle_all_urls"]
        var target: Target
    }

    static func assetLinks(_ apps: ProjectSettings.Apps) -> [AssetLink] {
        apps.android.map { AssetLink(target: .init(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints)) }
    }

    private static func json(_ value: some Encodable) throws -> Response {
        var response = try JSONBody.response(value)
        response.headers[.contentType] = "application/json"
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}
