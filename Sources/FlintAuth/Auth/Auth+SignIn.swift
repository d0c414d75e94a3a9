import FlintWire
import Foundation

extension Auth {
    /// Signs in as a new anonymous user, or returns the current user if it is already anonymous.
    @discardableResult
    public func signInAnonymously() async throws -> AuthDataResult {
        if let user = currentUser, user.isAnonymous {
            return AuthDataResult(user: user, additionalUserInfo: nil)
        }
        let response = try await backend.signUp(SignUpRequest())
        return try await completeSignIn(response, isAnonymous: true,
                                        additionalUserInfo: AdditionalUserInfo(providerID: "", isNewUser: true))
    }

    /// Completion-handler form of `signInAnonymously()`.
    public func signInAnonymously(completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.signInAnonymously() }
    }

    /// Creates an email/password user and signs it in.
    @discardableResult
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        let response = try await backend.signUp(SignUpRequest(email: email, password: password))
        return try await completeSignIn(response, isAnonymous: false,
                                        additionalUserInfo: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: true))
    }

    /// Completion-handler form of `createUser(withEmail:password:)`.
    public func createUser(
        withEmail email: String,
        password: String,
        completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.createUser(withEmail: email, password: password) }
    }

    /// Signs in with an email and password.
    @discardableResult
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        try await signIn(with: EmailAuthProvider.credential(withEmail: email, password: password))
    }

    /// Completion-handler form of `signIn(withEmail:password:)`.
    public func signIn(
        withEmail email: String,
        password: String,
        completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.signIn(withEmail: email, password: password) }
    }

    /// Signs in with a provider's credential.
    @discardableResult
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        let exchange = try await credential.exchange(for: .signIn, backend: backend, pending: .signIn(self))
        let info = exchange.additionalUserInfo
            ?? AdditionalUserInfo(providerID: credential.provider, isNewUser: exchange.response.isNewUser ?? false)
        return try await completeSignIn(exchange.response, isAnonymous: false, additionalUserInfo: info,
                                        credential: exchange.credential)
    }

    /// Completion-handler form of `signIn(with:)`.
    public func signIn(with credential: AuthCredential, completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.signIn(with: credential) }
    }

    /// Signs in with a custom token that the app's own server minted with an Admin SDK
    /// (`createCustomToken`), creating the user on first use. Its developer claims ride along in the
    /// session's ID tokens. `additionalUserInfo.providerID` is `""`, as in FirebaseAuth. Throws
    /// `invalidCustomToken` for a token the server does not accept and `customTokenMismatch` for one
    /// of another project.
    @discardableResult
    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        let response = try await backend.signIn(customToken: token)
        return try await completeSignIn(response, isAnonymous: false,
                                        additionalUserInfo: AdditionalUserInfo(providerID: "", isNewUser: response.isNewUser ?? false))
    }

    /// Completion-handler form of `signIn(withCustomToken:)`.
    public func signIn(withCustomToken token: String, completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.signIn(withCustomToken: token) }
    }

    /// The sign-in methods (`"password"`, `"emailLink"`, IdP IDs) of the account with `email`;
    /// empty if there is none, or if the project protects against email enumeration.
    /// (Deprecated in FirebaseAuth for that reason.)
    public func fetchSignInMethods(forEmail email: String) async throws -> [String] {
        try await backend.createAuthURI(identifier: email).signinMethods ?? []
    }

    /// Completion-handler form of `fetchSignInMethods(forEmail:)`.
    public func fetchSignInMethods(forEmail email: String, completion: (@MainActor ([String]?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.fetchSignInMethods(forEmail: email) }
    }

    /// Turns a sign-in answer into the current user (see `completeSignIn(tokens:isAnonymous:additionalUserInfo:credential:)`).
    func completeSignIn(
        _ response: SignInResponse,
        isAnonymous: Bool,
        additionalUserInfo: AdditionalUserInfo?,
        credential: OAuthCredential? = nil
    ) async throws -> AuthDataResult {
        try await completeSignIn(tokens: try TokenSnapshot(response), isAnonymous: isAnonymous,
                                 additionalUserInfo: additionalUserInfo, credential: credential)
    }

    /// Makes the owner of `tokens` the current user: looks the account up (as FirebaseAuth does
    /// after every sign-in), persists the user and tells the listeners.
    func completeSignIn(
        tokens: TokenSnapshot,
        isAnonymous: Bool,
        additionalUserInfo: AdditionalUserInfo?,
        credential: OAuthCredential? = nil
    ) async throws -> AuthDataResult {
        let backend = backend
        let record = try await backend.lookup(idToken: tokens.accessToken)
        let snapshot = UserSnapshot(record: record, tokens: tokens, isAnonymous: isAnonymous,
                                    tenantID: record.tenantId ?? backend.configuration.tenantID)
        let user = User(snapshot: snapshot, auth: self)
        try signInCompleted(user)
        return AuthDataResult(user: user, additionalUserInfo: additionalUserInfo, credential: credential)
    }
}
