@testable import FlintAuth
import Foundation
import Testing

/// Sign-in, sign-up and their errors, end to end against a Flint server.
@Suite struct SignInTests {
    @Test func anonymousSignInThroughUseEmulator() async throws {
        try await withHarness { harness in
            let auth = harness.makeAuth(store: InMemoryCredentialStore())
            auth.useEmulator(withHost: harness.server.host, port: harness.server.port)

            let result = try await auth.signInAnonymously()
            let user = result.user
            #expect(auth.currentUser === user)
            #expect(user.isAnonymous)
            #expect(!user.uid.isEmpty)
            #expect(user.providerID == "Firebase")
            #expect(user.email == nil)
            #expect(user.providerData.isEmpty)
            #expect(user.refreshToken?.isEmpty == false)
            #expect(user.metadata.creationDate != nil)
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.additionalUserInfo?.providerID == "")

            // Signing in anonymously again keeps the anonymous user.
            let again = try await auth.signInAnonymously()
            #expect(again.user === user)
            #expect(try await user.getIDTokenResult().signInProvider == "anonymous")
        }
    }

    @Test func createUserThenSignInWithPassword() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let created = try await harness.auth.createUser(withEmail: email, password: "secret1")
            #expect(created.additionalUserInfo?.isNewUser == true)
            #expect(created.additionalUserInfo?.providerID == "password")
            #expect(created.user.email == email)
            #expect(!created.user.isAnonymous)
            #expect(!created.user.isEmailVerified)
            #expect(created.user.providerData.map(\.providerID) == ["password"])
            #expect(created.user.providerData.first?.email == email)
            #expect(created.user.providerData.first?.uid == email) // the federatedId

            try harness.auth.signOut()
            #expect(harness.auth.currentUser == nil)

            let signedIn = try await harness.auth.signIn(withEmail: email, password: "secret1")
            #expect(signedIn.user.uid == created.user.uid)
            #expect(signedIn.additionalUserInfo?.isNewUser == false)
            #expect(harness.auth.currentUser === signedIn.user)
            #expect(try await harness.auth.fetchSignInMethods(forEmail: email) == ["password"])
            #expect(try await harness.auth.fetchSignInMethods(forEmail: Harness.email("nobody")) == [])
        }
    }

    @Test func signInWithEmailCredential() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let uid = try await harness.auth.createUser(withEmail: email, password: "secret1").user.uid
            try harness.auth.signOut()
            let credential = EmailAuthProvider.credential(withEmail: email, password: "secret1")
            #expect(credential.provider == EmailAuthProvider.id)
            let result = try await harness.auth.signIn(with: credential)
            #expect(result.user.uid == uid)
        }
    }

    @Test func wrongPassword() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            try await harness.auth.createUser(withEmail: email, password: "secret1")
            try harness.auth.signOut()
            await expectAuthError(.wrongPassword) {
                try await harness.auth.signIn(withEmail: email, password: "not-the-password")
            }
            #expect(harness.auth.currentUser == nil)
        }
    }

    @Test func duplicateEmail() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            try await harness.auth.createUser(withEmail: email, password: "secret1")
            let error = await expectAuthError(.emailAlreadyInUse) {
                try await harness.auth.createUser(withEmail: email, password: "secret2")
            }
            #expect(error?.userInfo[AuthErrorUserInfoNameKey] as? String == "ERROR_EMAIL_ALREADY_IN_USE")
        }
    }

    @Test func weakPassword() async throws {
        try await withHarness { harness in
            let error = await expectAuthError(.weakPassword) {
                try await harness.auth.createUser(withEmail: Harness.email(), password: "123")
            }
            #expect(error?.userInfo[NSLocalizedFailureReasonErrorKey] as? String != nil)
        }
    }

    @Test func invalidEmail() async throws {
        try await withHarness { harness in
            await expectAuthError(.invalidEmail) {
                try await harness.auth.createUser(withEmail: "not-an-email", password: "secret1")
            }
        }
    }

    @Test func completionHandlersRunOnTheMainActor() async throws {
        try await withHarness { harness in
            // The callback queue is for listeners; completion handlers run on the main actor regardless.
            harness.auth.callbackQueue = DispatchQueue(label: "test.callbacks")

            let (uid, onMain) = try await withCheckedThrowingContinuation { continuation in
                harness.auth.signInAnonymously { result, error in
                    if let result {
                        continuation.resume(returning: (result.user.uid, isOnMainQueue()))
                    } else {
                        continuation.resume(throwing: error!)
                    }
                }
            }
            #expect(onMain)
            #expect(uid == harness.auth.currentUser?.uid)

            let failure: (any Error)? = await withCheckedContinuation { continuation in
                harness.auth.signIn(withEmail: Harness.email(), password: "whatever") { result, error in
                    #expect(result == nil)
                    #expect(isOnMainQueue())
                    continuation.resume(returning: error)
                }
            }
            #expect(failure.flatMap(AuthErrorCode.init) == .userNotFound)
        }
    }

    /// A main-actor class (a view controller, a view model) updates its own state inside a completion
    /// handler, as Swift 6 apps written against FirebaseAuth do.
    @Test func mainActorCallersUpdateTheirStateInCompletions() async throws {
        try await withHarness { harness in
            let model = SignInModel()
            await model.signIn(harness.auth)
            let (uid, isNewUser) = await (model.uid, model.isNewUser)
            #expect(uid != nil)
            #expect(uid == harness.auth.currentUser?.uid)
            #expect(isNewUser)
        }
    }

    @Test func requestsCarryTheClientHeaders() async throws {
        let client = RecordingHTTPClient()
        try await withHarness(httpClient: client) { harness in
            harness.auth.languageCode = "fr"
            try await harness.auth.signInAnonymously()

            let signUp = try #require(client.requests.first)
            #expect(signUp.url.path.hasSuffix("/identitytoolkit.googleapis.com/v1/accounts:signUp"))
            #expect(signUp.url.query == "key=\(harness.server.apiKey)")
            #expect(signUp.headers["Content-Type"] == "application/json")
            #expect(signUp.headers["X-Client-Version"]?.hasPrefix("Flint/Swift/") == true)
            #expect(signUp.headers["X-Firebase-Locale"] == "fr")
            // As FirebaseAuth does, the user is built from accounts:lookup.
            #expect(client.requests.map { $0.url.lastPathComponent } == ["accounts:signUp", "accounts:lookup"])
        }
    }
}

@MainActor
private final class SignInModel {
    var uid: String?
    var isNewUser = false

    func signIn(_ auth: Auth) async {
        await withCheckedContinuation { continuation in
            auth.signInAnonymously { result, _ in
                self.uid = result?.user.uid
                self.isNewUser = result?.additionalUserInfo?.isNewUser ?? false
                continuation.resume()
            }
        }
    }
}
