import FlintAdmin
import Foundation

// The FlintAdmin snippet of docs/flintadmin.md, as the page shows it (FlintServerTests' DocsTests checks that every
// ```swift block of the docs appears, whitespace aside, in a file a build compiles). It needs a server and a key
// to run, so nothing calls it; that it compiles is the test.
enum FlintAdminDocsSnippets {
    static func verifyAndManage(keyFile: URL, idToken: String) async throws {
        let auth = try AdminAuth(serviceAccount: ServiceAccount(contentsOf: keyFile), endpoints: .flint(URL(string: "https://auth.example.com")!))
        let token = try await auth.verifyIDToken(idToken, checkRevoked: true)   // DecodedIDToken: uid, email, claims, tenant
        try await auth.setCustomUserClaims(uid: token.uid, ["role": "editor"])
        for try await page in auth.listUsers() { for user in page { print(user.uid) } }
    }
}
