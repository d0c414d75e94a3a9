import FlintAuth
import Foundation
import Testing

/// The snippets of this target are FirebaseAuth's documentation code with only the import changed. That
/// they compile (in Swift 6 mode) is the test; they need a server to run, so nothing calls them.
@Suite struct CompatibilityTests {
    @Test @MainActor func snippetsCompile() {
        let controllers: [SnippetViewController] = [
            PasswordViewController(), AnonymousViewController(), PhoneViewController(), EmailLinkViewController(),
            FederatedViewController(), MultiFactorViewController(), AccountViewController(), ProfileViewController(),
            ErrorCodeViewController(), SessionViewController(),
        ]
        #expect(controllers.allSatisfy { $0.lastMessage == nil })
        #expect(SignInViewModel().isSignedIn == false)
        let configure: () -> Void = configureFirebase
        _ = configure
    }
}
