@testable import FlintAdminCore
import FlintWire
import Foundation
import Testing

/// The checks FlintAdmin makes before sending, each with firebase-admin's code: every case throws that code and
/// sends nothing (the transport fails the test if it is called).
@Suite struct ArgumentChecksTests {
    /// One refused call: what it is, the code it throws, and the call.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let code: AdminError.Code
        let call: @Sendable (AdminAuth) async throws -> Void
        var testDescription: String { "\(name) → \(code)" }

        init(_ name: String, _ code: AdminError.Code, _ call: @escaping @Sendable (AdminAuth) async throws -> Void) {
            self.name = name
            self.code = code
            self.call = call
        }
    }

    static let longUID = String(repeating: "u", count: 129)
    static let hashed = UserImportRecord(uid: "h", passwordHash: Data([1]))

    static let refusals: [Refusal] = [
        // Looking users up
        Refusal("user(uid:) empty", .invalidUID) { _ = try await $0.user(uid: "") },
        Refusal("user(uid:) over 128", .invalidUID) { _ = try await $0.user(uid: longUID) },
        Refusal("user(email:)", .invalidEmail) { _ = try await $0.user(email: "nobody") },
        Refusal("user(phoneNumber:)", .invalidPhoneNumber) { _ = try await $0.user(phoneNumber: "5555550100") },
        Refusal("users over 100", .maximumUserCountExceeded) { _ = try await $0.users((0...100).map { .uid("u\($0)") }) },
        Refusal("users uid", .invalidUID) { _ = try await $0.users([.uid("ok"), .uid(longUID)]) },
        Refusal("users email", .invalidEmail) { _ = try await $0.users([.email("a@")]) },
        Refusal("users phone", .invalidPhoneNumber) { _ = try await $0.users([.phoneNumber("+")]) },
        Refusal("users provider id", .invalidProviderID) { _ = try await $0.users([.provider(providerID: "", providerUID: "x")]) },
        Refusal("users provider uid", .invalidProviderUID) {
            _ = try await $0.users([.provider(providerID: "google.com", providerUID: "")])
        },
        // Creating and changing users
        Refusal("createUser uid over 128", .invalidUID) { try await $0.createUser(NewUser(uid: longUID)) },
        Refusal("createUser email", .invalidEmail) { try await $0.createUser(NewUser(email: "a@b@c")) },
        Refusal("createUser phone", .invalidPhoneNumber) { try await $0.createUser(NewUser(phoneNumber: "+-")) },
        Refusal("createUser password", .invalidPassword) { try await $0.createUser(NewUser(password: "12345")) },
        Refusal("createUser displayName", .invalidDisplayName) { try await $0.createUser(NewUser(displayName: "")) },
        Refusal("createUser photoURL", .invalidPhotoURL) { try await $0.createUser(NewUser(photoURL: "not a url")) },
        Refusal("createUser photoURL scheme", .invalidPhotoURL) {
            try await $0.createUser(NewUser(photoURL: "ftp://example.com/a.png"))
        },
        Refusal("updateUser uid over 128", .invalidUID) { try await $0.updateUser(uid: longUID, UserUpdate(disabled: true)) },
        Refusal("updateUser email", .invalidEmail) { try await $0.updateUser(uid: "u", UserUpdate(email: "@b")) },
        Refusal("updateUser phone", .invalidPhoneNumber) { try await $0.updateUser(uid: "u", UserUpdate(phoneNumber: .set("123"))) },
        Refusal("updateUser password", .invalidPassword) { try await $0.updateUser(uid: "u", UserUpdate(password: "")) },
        Refusal("updateUser displayName", .invalidDisplayName) { try await $0.updateUser(uid: "u", UserUpdate(displayName: .set(""))) },
        Refusal("updateUser photoURL", .invalidPhotoURL) {
            try await $0.updateUser(uid: "u", UserUpdate(photoURL: .set("https://example.com//a")))
        },
        Refusal("updateUser reserved claim", .forbiddenClaim) {
            try await $0.updateUser(uid: "u", UserUpdate(customClaims: .set(["firebase": true])))
        },
        Refusal("updateUser empty provider to unlink", .invalidArgument) {
            try await $0.updateUser(uid: "u", UserUpdate(providersToUnlink: ["google.com", ""]))
        },
        Refusal("updateUser phone removed twice", .invalidArgument) {
            try await $0.updateUser(uid: "u", UserUpdate(phoneNumber: .remove, providersToUnlink: ["phone"]))
        },
        Refusal("setCustomUserClaims uid", .invalidUID) { try await $0.setCustomUserClaims(uid: "", nil) },
        Refusal("setCustomUserClaims reserved", .forbiddenClaim) { try await $0.setCustomUserClaims(uid: "u", ["iss": "x"]) },
        Refusal("setCustomUserClaims over 1000", .claimsTooLarge) {
            try await $0.setCustomUserClaims(uid: "u", ["big": .string(String(repeating: "x", count: 1000))])
        },
        Refusal("revokeRefreshTokens uid", .invalidUID) { try await $0.revokeRefreshTokens(uid: longUID) },
        // Deleting and listing
        Refusal("deleteUser uid", .invalidUID) { try await $0.deleteUser(uid: "") },
        Refusal("deleteUsers over 1000", .maximumUserCountExceeded) { _ = try await $0.deleteUsers(uids: (0...1000).map { "u\($0)" }) },
        Refusal("deleteUsers uid", .invalidUID) { _ = try await $0.deleteUsers(uids: ["ok", ""]) },
        Refusal("listUsers pageSize 0", .invalidArgument) { try await firstPage($0.listUsers(pageSize: 0)) },
        Refusal("listUsers pageSize 1001", .invalidArgument) { try await firstPage($0.listUsers(pageSize: 1001)) },
        // Imports: the whole call
        Refusal("importUsers over 1000", .maximumUserCountExceeded) {
            _ = try await $0.importUsers((0...1000).map { UserImportRecord(uid: "u\($0)") })
        },
        Refusal("importUsers hashes without hash", .invalidArgument) { _ = try await $0.importUsers([hashed]) },
        Refusal("scrypt key", .invalidHashKey) { try await importHashed($0, .scrypt(key: Data(), rounds: 8, memoryCost: 14)) },
        Refusal("scrypt rounds 0", .invalidHashRounds) { try await importHashed($0, .scrypt(key: Data([1]), rounds: 0, memoryCost: 14)) },
        Refusal("scrypt rounds 9", .invalidHashRounds) { try await importHashed($0, .scrypt(key: Data([1]), rounds: 9, memoryCost: 14)) },
        Refusal("scrypt memory cost 0", .invalidHashMemoryCost) {
            try await importHashed($0, .scrypt(key: Data([1]), rounds: 8, memoryCost: 0))
        },
        Refusal("scrypt memory cost 15", .invalidHashMemoryCost) {
            try await importHashed($0, .scrypt(key: Data([1]), rounds: 8, memoryCost: 15))
        },
        Refusal("standard scrypt memory cost", .invalidHashMemoryCost) {
            try await importHashed($0, .standardScrypt(memoryCost: -1, parallelization: 1, blockSize: 8, derivedKeyLength: 64))
        },
        Refusal("standard scrypt parallelization", .invalidHashParallelization) {
            try await importHashed($0, .standardScrypt(memoryCost: 1024, parallelization: -1, blockSize: 8, derivedKeyLength: 64))
        },
        Refusal("standard scrypt block size", .invalidHashBlockSize) {
            try await importHashed($0, .standardScrypt(memoryCost: 1024, parallelization: 1, blockSize: -1, derivedKeyLength: 64))
        },
        Refusal("standard scrypt derived key length", .invalidHashDerivedKeyLength) {
            try await importHashed($0, .standardScrypt(memoryCost: 1024, parallelization: 1, blockSize: 8, derivedKeyLength: -1))
        },
        Refusal("hmac key", .invalidHashKey) { try await importHashed($0, .hmacSHA256(key: Data())) },
        Refusal("md5 rounds 8193", .invalidHashRounds) { try await importHashed($0, .md5(rounds: 8193)) },
        Refusal("md5 rounds -1", .invalidHashRounds) { try await importHashed($0, .md5(rounds: -1)) },
        Refusal("sha256 rounds 0", .invalidHashRounds) { try await importHashed($0, .sha256(rounds: 0)) },
        Refusal("pbkdf2 rounds 120001", .invalidHashRounds) { try await importHashed($0, .pbkdf2SHA256(rounds: 120_001)) },
        // Action links
        Refusal("link email", .invalidEmail) { _ = try await $0.generatePasswordResetLink(email: "nobody") },
        Refusal("link url", .invalidContinueURI) {
            _ = try await $0.generateEmailVerificationLink(email: "a@example.com", settings: ActionCodeSettings(url: "not a url"))
        },
        Refusal("link empty url", .invalidContinueURI) {
            _ = try await $0.generateSignInWithEmailLink(email: "a@example.com", settings: ActionCodeSettings(url: "", handleCodeInApp: true))
        },
        Refusal("link linkDomain", .invalidHostingLinkDomain) {
            _ = try await $0.generatePasswordResetLink(email: "a@example.com", settings: settings(linkDomain: ""))
        },
        Refusal("link iOS bundle ID", .invalidArgument) {
            _ = try await $0.generatePasswordResetLink(email: "a@example.com", settings: settings(iOSBundleID: ""))
        },
        Refusal("link Android without package", .missingAndroidPackageName) {
            _ = try await $0.generatePasswordResetLink(email: "a@example.com", settings: settings(androidInstallApp: true))
        },
        Refusal("link Android package", .invalidArgument) {
            _ = try await $0.generatePasswordResetLink(email: "a@example.com", settings: settings(androidPackageName: ""))
        },
        Refusal("link Android minimum version", .invalidArgument) {
            _ = try await $0.generatePasswordResetLink(email: "a@example.com",
                                                       settings: settings(androidPackageName: "com.example", androidMinimumVersion: ""))
        },
        // Session cookies and custom tokens
        Refusal("session cookie ID token", .invalidIDToken) { _ = try await $0.createSessionCookie(idToken: "", expiresIn: 3600) },
        Refusal("session cookie under 5 minutes", .invalidSessionCookieDuration) {
            _ = try await $0.createSessionCookie(idToken: "t", expiresIn: 299)
        },
        Refusal("session cookie over 14 days", .invalidSessionCookieDuration) {
            _ = try await $0.createSessionCookie(idToken: "t", expiresIn: 14 * 24 * 3600 + 1)
        },
        Refusal("custom token uid over 128", .invalidArgument) { _ = try $0.createCustomToken(uid: longUID) },
        Refusal("custom token reserved claim", .invalidArgument) { _ = try $0.createCustomToken(uid: "u", claims: ["aud": "x"]) },
        // Tenants
        Refusal("tenant(id:)", .invalidTenantID) { _ = try await $0.tenant(id: "") },
        Refusal("updateTenant", .invalidTenantID) { _ = try await $0.updateTenant(id: "", Tenant(displayName: "Acme")) },
        Refusal("deleteTenant", .invalidTenantID) { try await $0.deleteTenant(id: "") },
        Refusal("listTenants pageSize 0", .invalidArgument) { try await firstPage($0.listTenants(pageSize: 0)) },
        Refusal("listTenants pageSize 1001", .invalidArgument) { try await firstPage($0.listTenants(pageSize: 1001)) },
        // Provider configs
        Refusal("oidcProviderConfig id", .invalidProviderID) { _ = try await $0.oidcProviderConfig(id: "saml.acme") },
        Refusal("createOIDCProviderConfig no id", .missingProviderID) { _ = try await $0.createOIDCProviderConfig(id: "", OIDCProviderConfig()) },
        Refusal("createOIDCProviderConfig id", .invalidProviderID) { _ = try await $0.createOIDCProviderConfig(id: "acme", OIDCProviderConfig()) },
        Refusal("updateOIDCProviderConfig id", .invalidProviderID) { _ = try await $0.updateOIDCProviderConfig(id: "", OIDCProviderConfig()) },
        Refusal("deleteOIDCProviderConfig id", .invalidProviderID) { try await $0.deleteOIDCProviderConfig(id: "google.com") },
        Refusal("listOIDCProviderConfigs pageSize 101", .invalidArgument) { try await firstPage($0.listOIDCProviderConfigs(pageSize: 101)) },
        Refusal("samlProviderConfig id", .invalidProviderID) { _ = try await $0.samlProviderConfig(id: "oidc.acme") },
        Refusal("createSAMLProviderConfig no id", .missingProviderID) { _ = try await $0.createSAMLProviderConfig(id: "", SAMLProviderConfig()) },
        Refusal("updateSAMLProviderConfig id", .invalidProviderID) { _ = try await $0.updateSAMLProviderConfig(id: "acme", SAMLProviderConfig()) },
        Refusal("deleteSAMLProviderConfig id", .invalidProviderID) { try await $0.deleteSAMLProviderConfig(id: "") },
        Refusal("listSAMLProviderConfigs pageSize 0", .invalidArgument) { try await firstPage($0.listSAMLProviderConfigs(pageSize: 0)) },
        // The OpenID provider's protected resources
        Refusal("oauthResource id", .invalidArgument) { _ = try await $0.oauthResource("") },
        Refusal("updateOAuthResource id", .invalidArgument) { _ = try await $0.updateOAuthResource("", OAuthResource(displayName: "x")) },
        Refusal("deleteOAuthResource id", .invalidArgument) { try await $0.deleteOAuthResource("") },
    ]

    @Test(arguments: refusals)
    func refusedBeforeSending(_ refusal: Refusal) async throws {
        let auth = try Self.client(RefusingTransport())
        do {
            try await refusal.call(auth)
            Issue.record("\(refusal.name) was not refused")
        } catch let error as AdminError {
            #expect(error.code == refusal.code, "\(error)")
            #expect(error.serverCode == nil, "refused by the server, not before sending: \(error)")
        }
    }

    /// Imported users that fail a check are reported at their index with its code, as firebase-admin reports them;
    /// when none is left, nothing is sent.
    static let refusedImports: [(UserImportRecord, AdminError.Code)] = [
        (UserImportRecord(uid: ""), .invalidUID),
        (UserImportRecord(uid: longUID), .invalidUID),
        (UserImportRecord(uid: "u", email: "nobody"), .invalidEmail),
        (UserImportRecord(uid: "u", phoneNumber: "15555550100"), .invalidPhoneNumber),
        (UserImportRecord(uid: "u", displayName: ""), .invalidDisplayName),
        (UserImportRecord(uid: "u", photoURL: "not a url"), .invalidPhotoURL),
        (UserImportRecord(uid: "u", creationTime: Date(timeIntervalSince1970: -1)), .invalidCreationTime),
        (UserImportRecord(uid: "u", lastSignInTime: Date(timeIntervalSince1970: 0)), .invalidLastSignInTime),
        (UserImportRecord(uid: "u", customClaims: ["sub": "x"]), .forbiddenClaim),
        (UserImportRecord(uid: "u", providerData: [ImportedIdentity(providerID: "", uid: "g1")]), .invalidProviderID),
        (UserImportRecord(uid: "u", providerData: [ImportedIdentity(providerID: "google.com", uid: "")]), .invalidUID),
        (UserImportRecord(uid: "u", providerData: [ImportedIdentity(providerID: "google.com", uid: "g1", email: "g1")]), .invalidEmail),
        (UserImportRecord(uid: "u", providerData: [ImportedIdentity(providerID: "google.com", uid: "g1", photoURL: "g1")]),
         .invalidPhotoURL),
    ]

    @Test(arguments: refusedImports)
    func importedUsersThatFailAreReportedNotSent(_ user: UserImportRecord, _ code: AdminError.Code) async throws {
        let result = try await Self.client(RefusingTransport()).importUsers([user])
        #expect(result.successCount == 0 && result.errors.map(\.index) == [0] && result.errors.map(\.code) == [code], "\(result.errors)")
    }

    @Test func importsSendTheUsersThatPassAndReportBothKindsOfFailureByIndex() async throws {
        let server = ScriptedTransport(answers: [#"{"error":[{"index":1,"message":"DUPLICATE_LOCAL_ID"}]}"#])
        let result = try await Self.client(server).importUsers([
            UserImportRecord(uid: "a"), UserImportRecord(uid: "b", email: "not an email"), UserImportRecord(uid: "c"),
        ])
        #expect(result.successCount == 1 && result.failureCount == 2)
        #expect(result.errors.map(\.index) == [1, 2] && result.errors.map(\.code) == [.invalidEmail, .invalidUserImport])
        let sent = try JSONDecoder().decode(BatchCreateRequest.self, from: try #require(server.requests.first?.body))
        #expect(sent.users?.map(\.localId) == ["a", "c"])
    }

    /// The checks refuse only what firebase-admin refuses: a call with every field well-formed is sent.
    @Test func wellFormedCallsAreSent() async throws {
        let server = ScriptedTransport(answers: [#"{"localId":"u1"}"#, #"{"users":[{"localId":"u1"}]}"#, "{}", "{}", "{}"])
        let auth = try Self.client(server)
        try await auth.createUser(NewUser(uid: String(repeating: "u", count: 128), email: "ada@example.com", phoneNumber: "+15555550100",
                                          password: "123456", displayName: "Ada",
                                          photoURL: "https://cdn.example.com:8443/a/ada.png?size=2#top"))
        _ = try await auth.deleteUsers(uids: ["u1"])
        _ = try await auth.importUsers([UserImportRecord(uid: "i", passwordHash: Data([1]))],
                                       hash: .scrypt(key: Data([1]), rounds: 8, memoryCost: 14))
        _ = try await auth.importUsers([UserImportRecord(uid: "j", passwordHash: Data([1]))], hash: .md5(rounds: 0))
        #expect(server.requests.count == 5)
    }

    @Test func urlsAreTheOnesFirebaseAdminTakes() {
        for good in ["https://example.com", "http://example.com/", "https://a-b.example.co.uk/p/q.png", "http://localhost:9099/x/",
                     "https://example.com/a?q=1&r=%20#frag", "http://[::1]/p", "https://user@example.com/~me"] {
            #expect(Check.isURL(good), "\(good)")
        }
        for bad in ["", "not a url", "example.com", "ftp://example.com", "https://-example.com", "https://example-.com",
                    "https://exa_mple.com", "https://example.com//a", "https://example.com/ü", "https://example..com", "https://"] {
            #expect(!Check.isURL(bad), "\(bad)")
        }
    }

    /// Every code the server answers with: the firebase-admin code it is named by, or `internalError` for those
    /// firebase-admin-node does not name (`INVALID_ARGUMENT` among them, as node leaves it). A new server code fails
    /// this test until it is put in one list or the other.
    @Test func everyServerCodeIsNamedAsFirebaseAdminNamesIt() {
        let named: [ServerErrorCode: AdminError.Code] = [
            .permissionDenied: .insufficientPermission, .projectNotFound: .projectNotFound,
            .insufficientPermission: .insufficientPermission, .operationNotAllowed: .operationNotAllowed,
            .userNotFound: .userNotFound, .userDisabled: .userDisabled, .missingLocalID: .missingUID,
            .missingProviderID: .missingProviderID, .invalidIDToken: .invalidIDToken, .tokenExpired: .idTokenExpired,
            .missingEmail: .missingEmail, .invalidEmail: .invalidEmail, .invalidContinueURI: .invalidContinueURI,
            .emailExists: .emailAlreadyExists, .emailNotFound: .emailNotFound, .weakPassword: .invalidPassword,
            .phoneNumberExists: .phoneNumberAlreadyExists, .invalidPhoneNumber: .invalidPhoneNumber,
            .duplicateLocalID: .uidAlreadyExists, .missingUserAccount: .missingUID, .duplicateEmail: .emailAlreadyExists,
            .invalidProviderID: .invalidProviderID, .invalidClaims: .invalidClaims, .claimsTooLarge: .claimsTooLarge,
            .forbiddenClaim: .forbiddenClaim, .quotaExceeded: .quotaExceeded,
            .unsupportedTenantOperation: .unsupportedTenantOperation, .tenantNotFound: .tenantNotFound,
            .tenantIDMismatch: .tenantIDMismatch, .unsupportedFirstFactor: .unsupportedFirstFactor,
            .unverifiedEmail: .unverifiedEmail, .duplicateMFAEnrollmentID: .secondFactorUIDAlreadyExists,
            .secondFactorLimitExceeded: .secondFactorLimitExceeded, .unauthorizedDomain: .unauthorizedContinueURI,
            .missingIOSBundleID: .missingIOSBundleID, .missingAndroidPackageName: .missingAndroidPackageName,
            .invalidHostingLinkDomain: .invalidHostingLinkDomain, .invalidProviderConfig: .invalidConfig,
            .missingSAMLRelyingPartyConfig: .missingSAMLRelyingPartyConfig, .configurationNotFound: .configurationNotFound,
            .invalidDuration: .invalidSessionCookieDuration,
        ]
        let unnamed: Set<ServerErrorCode> = [
            .invalidArgument, .unauthenticated, .notFound, .internalError, .notImplemented, .adminOnlyOperation,
            .unexpectedParameter, .missingRawID, .tooManyAttempts, .invalidBlockingFunction, .blockingFunctionErrorResponse,
            .missingIDToken, .credentialTooOld, .missingPassword, .invalidIdentifier, .missingIdentifier, .missingContinueURI,
            .invalidPassword, .invalidLoginCredentials, .passwordDoesNotMeetRequirements, .passwordLoginDisabled,
            .duplicateRawID, .localIDListExceedsLimit, .missingPhoneNumber, .missingCode, .invalidCode, .missingSessionInfo,
            .invalidSessionInfo, .sessionExpired, .invalidTemporaryProof, .missingAppCredential, .invalidAppCredential,
            .missingIOSAppToken, .invalidRecaptchaToken, .captchaCheckFailed, .rejectedCredential, .projectDisabled,
            .missingMFAPendingCredential, .invalidMFAPendingCredential, .missingMFAEnrollmentID, .mfaEnrollmentNotFound,
            .secondFactorExists, .invalidMFAPhoneNumber, .invalidMFAEnrollmentID, .missingTOTPCode, .invalidOobCode,
            .expiredOobCode, .missingOobCode, .missingRequestType, .missingNewEmail, .emailChangeNeedsVerification,
            .resetPasswordExceedLimit, .missingOrInvalidNonce, .invalidIDPResponse, .federatedUserIDAlreadyLinked,
            .invalidCredentialOrProviderID, .missingCredential, .missingRequestURI, .invalidRequestURI, .invalidPendingToken,
            .providerAlreadyLinked, .missingAuthenticatorResponse, .invalidCredentialID, .credentialAlreadyInUse,
            .passkeyCredentialNotFound, .invalidAuthenticatorResponse, .invalidCustomToken, .missingCustomToken,
            .credentialMismatch, .missingGrantType, .invalidGrantType, .missingRefreshToken, .invalidRefreshToken,
            // Flint's own (the OpenID provider's admin API): the OAuth calls name them themselves.
            .oauthClientNotFound, .invalidOAuthClient, .invalidAuthorizationID, .oauthResourceNotFound, .invalidOAuthResource,
            // Flint's own (users' sessions): the sessions calls name it themselves.
            .sessionNotFound,
        ]
        #expect(Set(named.keys).isDisjoint(with: unnamed))
        for code in ServerErrorCode.allCases {
            guard let expected = named[code] ?? (unnamed.contains(code) ? .internalError : nil) else {
                Issue.record("\(code.rawValue) is in neither list")
                continue
            }
            let envelope = ErrorEnvelope(error: .init(code: 400, message: code.rawValue + " : detail", errors: [], status: nil))
            let error = AdminError(refusal: envelope, httpStatus: 400)
            #expect(error.code == expected && error.serverCode == code.rawValue && error.message == "detail", "\(code.rawValue)")
        }
    }

    // MARK: Helpers

    static func client(_ transport: any AdminTransport) throws -> AdminAuth {
        try AdminAuth(projectID: "p", credential: .emulatorOwner, endpoints: .emulator(host: "127.0.0.1:9099"), transport: transport)
    }

    static func firstPage<Element>(_ pages: Pages<Element>) async throws {
        var iterator = pages.makeAsyncIterator()
        _ = try await iterator.next()
    }

    static func importHashed(_ auth: AdminAuth, _ hash: UserImportHash) async throws {
        _ = try await auth.importUsers([hashed], hash: hash)
    }

    static func settings(linkDomain: String? = nil, iOSBundleID: String? = nil, androidPackageName: String? = nil,
                         androidInstallApp: Bool? = nil, androidMinimumVersion: String? = nil) -> ActionCodeSettings {
        ActionCodeSettings(url: "https://example.com/done", iOSBundleID: iOSBundleID, androidPackageName: androidPackageName,
                           androidInstallApp: androidInstallApp, androidMinimumVersion: androidMinimumVersion, linkDomain: linkDomain)
    }
}

/// A transport for calls that must send nothing: a request fails the test.
struct RefusingTransport: AdminTransport {
    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        Issue.record("sent \(request.method) \(request.url.absoluteString)")
        throw URLError(.cancelled)
    }
}

/// A server that answers each request with the next of `answers` (HTTP 200), and keeps the requests.
final class ScriptedTransport: AdminTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [String]
    private var sent: [AdminHTTPRequest] = []

    init(answers: [String]) { self.answers = answers }

    var requests: [AdminHTTPRequest] { lock.withLock { sent } }

    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        let answer: String? = lock.withLock {
            sent.append(request)
            return answers.isEmpty ? nil : answers.removeFirst()
        }
        guard let answer else {
            Issue.record("unexpected \(request.method) \(request.url.absoluteString)")
            throw URLError(.cancelled)
        }
        return AdminHTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(answer.utf8))
    }
}
