import _CryptoExtras
import FlintWire
import Foundation

/// SAML 2.0 single sign-on as a service provider (production mode), for `saml.…` providers.
///
/// **SP-initiated** (`start`): an `AuthnRequest` whose ID is kept in a sealed session (ten minutes, single use on
/// every node) together with the provider, the hash of the session ID the client keeps and where the browser goes
/// next; the sealed session is kept in the store and its handle travels as `RelayState` (SAML's bindings allow 80
/// bytes). The IdP posts its `SAMLResponse` and the `RelayState` back to the provider's callback URI. Flint's
/// `/__/auth/handler` keeps the response in the store too (`keep`) and sends the browser on to the app with the two
/// handles (`SAMLResponseHandle`, `RelayState`): a whole response is 10–15 KB, too long for the request line of the
/// app's web server, and would land in its access logs. The app finishes with `accounts:signInWithIdp` (`requestUri`
/// plus those fields, or the response itself when the IdP posted to the app, and its session ID): `finish`.
///
/// **IdP-initiated**: an unsolicited response (no `InResponseTo`, no session) posted to the app's own callback, which
/// the app sends with `providerId` in `postBody` — taken only where the provider allows it (`allowsIdPInitiated`).
///
/// Either way the response must pass `SAMLResponseReader` (the signature of a configured certificate over the very
/// element read) and then the checks of `check` (status, issuer, destination, recipient, audience, times, the request
/// it answers); an assertion ID is taken once per issuer (replay), remembered in the shared store past its expiry.
struct SAMLSignIn: Sendable {
    struct Session: Codable, Sendable {
        /// The realm's store key.
        var projectID: String
        var providerID: String
        /// The AuthnRequest's ID: the response's `InResponseTo`.
        var requestID: String
        /// Where the handler sends the browser with the response: the app's `continueUri`, or the handler itself.
        var redirectURI: String
        /// Lowercase hex SHA-256 of the session ID the client keeps.
        var sessionHash: String
        /// Where the handler page returns the browser to; nil when the client called `createAuthUri` itself.
        var handlerReturn: AuthorizationCodeFlow.HandlerReturn?
    }

    let sessions: SingleUseTokens<Session>
    /// The sealed sessions, by the handle that travels as `RelayState`.
    let relayStates: StoredHandles
    /// Responses the handler passes on to the app, by a handle: single use, for as long as their session lives.
    let responses: StoredHandles
    let counters: CounterStore
    let secrets: SecretBox
    let clock: any FlintClock
    let random: any RandomSource

    init(core: ServerCore) {
        sessions = core.singleUseTokens(purpose: "saml-sign-in-session", lifetimeSeconds: Self.sessionLifetimeSeconds)
        relayStates = core.storedHandles(purpose: "saml-relay-state")
        responses = core.storedHandles(purpose: "saml-response")
        counters = core.store.counters
        secrets = core.secrets
        clock = core.clock
        random = core.random
    }

    static let sessionLifetimeSeconds: Int64 = 600
    /// The field of the handler's link that names a kept response (`keep`), in place of `SAMLResponse`.
    static let responseHandleField = "SAMLResponseHandle"
    /// The clocks of Flint and the IdP may differ by this much.
    static let allowedSkewSeconds: TimeInterval = 120
    /// A base64 `SAMLResponse` longer than this is refused before decoding (the XML may be 256 KiB).
    static let maximumEncodedLength = 360 * 1024
    static let bearer = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
    static let success = "urn:oasis:names:tc:SAML:2.0:status:Success"

    // MARK: Going to the IdP

    /// The IdP's URL carrying a new AuthnRequest, for the client holding the session ID that hashes to `sessionHash`.
    func start(providerID: String, redirectURI: String, sessionHash: String,
               handlerReturn: AuthorizationCodeFlow.HandlerReturn?, configuration: ProjectSettings.IdentityProvider,
               projectID: String) async throws -> String {
        let saml = try Self.settings(of: configuration)
        let request = AuthnRequest(
            id: "_" + Hex.encode(random.bytes(20)), issueInstant: clock.now(), destination: saml.ssoURL,
            issuer: saml.spEntityID, assertionConsumerServiceURL: saml.callbackURI)
        let session = try sessions.make(Session(
            projectID: projectID, providerID: providerID, requestID: request.id, redirectURI: redirectURI,
            sessionHash: sessionHash, handlerReturn: handlerReturn))
        let relayState = try await relayStates.make(session, expiresAt: clock.seconds + Self.sessionLifetimeSeconds)
        let key = saml.signRequest ? try signingKey(saml, projectID: projectID, providerID: providerID) : nil
        return try request.redirectURL(relayState: relayState, signingKey: key)
    }

    // MARK: Back from the IdP

    /// The session a `RelayState` names (for the handler page to know where the browser goes), live; not yet spent.
    /// Nothing in the response is trusted here: `finish` checks it all.
    func open(relayState: String?) async throws -> SingleUseTokens<Session>.Opened {
        guard let opened = try await openSession(namedBy: relayState) else {
            throw FlintError(.invalidIDPResponse, "The SAML response does not belong to a sign-in that started here.")
        }
        return try live(opened)
    }

    /// Keeps the IdP's `samlResponse` for the session `opened` until the session expires; the handle names it once.
    func keep(_ samlResponse: String, for opened: SingleUseTokens<Session>.Opened) async throws -> String {
        try await responses.make(samlResponse, expiresAt: opened.expiresAt)
    }

    private func openSession(namedBy relayState: String?) async throws -> SingleUseTokens<Session>.Opened? {
        guard let relayState, let sealed = try await relayStates.value(of: relayState) else { return nil }
        return sessions.open(sealed)
    }

    private func live(_ opened: SingleUseTokens<Session>.Opened) throws -> SingleUseTokens<Session>.Opened {
        guard sessions.isLive(opened) else { throw FlintError(.invalidIDPResponse, "The sign-in session has expired.") }
        return opened
    }

    /// The identity a `SAMLResponse` (in `fields`: the merged fields of `requestUri` and `postBody`) proves, for the
    /// client holding `sessionID` (SP-initiated) or, unsolicited, for the provider `fields` names.
    func finish(fields: [String: String], sessionID: String?, caller: Caller) async throws -> ProviderIdentity {
        let session: SingleUseTokens<Session>.Opened?
        let providerID: String
        if let sealed = try await openSession(namedBy: fields["RelayState"]) {
            let opened = try live(sealed)
            guard opened.payload.projectID == caller.projectID else {
                throw FlintError(.invalidIDPResponse, "The SAML response belongs to another project or tenant.")
            }
            guard let sessionID, !sessionID.isEmpty,
                  constantTimeEquals(Data(Hex.sha256(sessionID).utf8), Data(opened.payload.sessionHash.utf8))
            else { throw FlintError(.invalidIDPResponse, "The SAML response belongs to another sign-in session.") }
            session = opened
            providerID = opened.payload.providerID
        } else {
            guard let named = fields["providerId"]?.lowercased(), named.hasPrefix(ProviderID.samlPrefix) else {
                throw FlintError(.invalidIDPResponse, "An unsolicited SAML response must name its providerId.")
            }
            session = nil
            providerID = named
        }
        guard let configuration = caller.project.settings.identityProviders[providerID], configuration.enabled else {
            throw FlintError(.operationNotAllowed, "The identity provider configuration is not found or disabled.")
        }
        let saml = try Self.settings(of: configuration)
        if session == nil, !saml.allowsIdPInitiated {
            throw FlintError(.invalidIDPResponse, "\(providerID) does not take IdP-initiated sign-in.")
        }
        let decryptionKey = try saml.sealedSPPrivateKey.map {
            try IdentityProviderConfigService.openSecret($0, with: secrets, projectID: caller.projectID, providerID: providerID)
        }
        let xml = try Self.decode(try await samlResponse(in: fields))
        let response: SAMLResponseData
        do {
            response = try SAMLResponseReader.read(xml, trustedCertificates: saml.idpCertificates, decryptionKeyPEM: decryptionKey)
        } catch {
            throw FlintError(.invalidIDPResponse, "The SAML response was refused: \(error.message)")
        }
        let expiry = try check(response, saml: saml, answering: session?.payload.requestID)

        if let session, !(try await sessions.redeem(session)) {
            throw FlintError(.invalidIDPResponse, "The sign-in session was used already.")
        }
        // The replay cache: one use per assertion ID of its issuer, whatever times a response around it names,
        // remembered at least until the latest expiry seen for it (`claimOnce` keeps the later one).
        let marker = "saml-assertion:\(Hex.sha256(response.assertion.issuer)):\(Hex.sha256(response.assertion.id))"
        guard try await counters.claimOnce(marker, keepUntil: expiry) else {
            throw FlintError(.invalidIDPResponse, "The SAML assertion was used already.")
        }
        return Self.identity(response.assertion, saml: saml, providerID: providerID)
    }

    /// Whether `fields` carry a SAML response, or the handle of one the handler kept.
    static func carriesResponse(_ fields: [String: String]) -> Bool {
        fields["SAMLResponse"] != nil || fields[responseHandleField] != nil
    }

    /// The response the fields carry, or the one the handler kept under the handle they name (taken: it works once).
    private func samlResponse(in fields: [String: String]) async throws -> String? {
        guard let handle = fields[Self.responseHandleField] else { return fields["SAMLResponse"] }
        guard let kept = try await responses.take(handle) else {
            throw FlintError(.invalidIDPResponse, "The SAML response was used already, or its sign-in has expired.")
        }
        return kept
    }

    /// What a verified response must also say (SAML profiles §4.1.4): a success; issued by the configured IdP; sent
    /// to the callback URI; answering the request the session sealed (or, unsolicited, none); a bearer confirmation
    /// for the callback URI that has not expired; the conditions' times holding and every audience restriction naming
    /// Flint's entity ID. Returns the epoch second after which the assertion is no longer taken.
    func check(_ response: SAMLResponseData, saml: SAMLProviderSettings, answering requestID: String?) throws -> Int64 {
        func refuse(_ reason: String) -> FlintError { FlintError(.invalidIDPResponse, "The SAML response was refused: \(reason)") }
        let now = clock.now().timeIntervalSince1970
        let skew = Self.allowedSkewSeconds
        let assertion = response.assertion
        guard response.statusCode == Self.success else { throw refuse("the IdP answered \(response.statusCode).") }
        guard response.issuer.map({ $0 == saml.idpEntityID }) ?? true, assertion.issuer == saml.idpEntityID else {
            throw refuse("it was not issued by \(saml.idpEntityID).")
        }
        if let destination = response.destination {
            guard destination == saml.callbackURI else { throw refuse("its Destination is not the callback URI.") }
        } else if response.isResponseSigned {
            throw refuse("a signed response must name its Destination.")
        }
        guard response.inResponseTo == requestID else {
            throw refuse(requestID == nil ? "an unsolicited response answers no request." : "it does not answer this sign-in's request.")
        }
        let confirmed = assertion.subjectConfirmations.contains { confirmation in
            guard confirmation.method == Self.bearer, confirmation.recipient == saml.callbackURI,
                  confirmation.inResponseTo == requestID, let notOnOrAfter = confirmation.notOnOrAfter
            else { return false }
            return notOnOrAfter.timeIntervalSince1970 + skew > now
                && (confirmation.notBefore.map { $0.timeIntervalSince1970 - skew <= now } ?? true)
        }
        guard confirmed else { throw refuse("no bearer confirmation for the callback URI holds.") }
        if let notBefore = assertion.notBefore, notBefore.timeIntervalSince1970 - skew > now {
            throw refuse("the assertion is not valid yet.")
        }
        if let notOnOrAfter = assertion.notOnOrAfter, notOnOrAfter.timeIntervalSince1970 + skew <= now {
            throw refuse("the assertion has expired.")
        }
        guard !assertion.audienceRestrictions.isEmpty,
              assertion.audienceRestrictions.allSatisfy({ $0.contains(saml.spEntityID) })
        else { throw refuse("its audience is not \(saml.spEntityID).") }
        let expiries = assertion.subjectConfirmations.compactMap(\.notOnOrAfter) + [assertion.notOnOrAfter].compactMap { $0 }
        return Int64((expiries.map(\.timeIntervalSince1970).max() ?? now) + skew) + 1
    }

    // MARK: The account

    /// Attribute names read for the email and the display name when the provider names none (Entra ID's and
    /// ADFS's claim URIs, the LDAP OIDs, and plain names).
    static let emailAttributes = [
        "email", "mail", "emailAddress", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
        "urn:oid:0.9.2342.19200300.100.1.3",
    ]
    static let displayNameAttributes = [
        "displayName", "name", "http://schemas.microsoft.com/identity/claims/displayname",
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name", "urn:oid:2.16.840.1.113730.3.1.241",
    ]

    /// The provider's identity: the NameID as the federated ID; the email from the configured attribute, common
    /// ones, or a NameID that is an address, verified only where the IdP is trusted to vouch for it; the display name
    /// likewise; every attribute as `rawUserInfo` (one value as a string, several as a list).
    static func identity(_ assertion: SAMLAssertionData, saml: SAMLProviderSettings, providerID: String) -> ProviderIdentity {
        func value(_ names: [String]) -> String? {
            names.lazy.compactMap { assertion.attributes[$0]?.first { !$0.isEmpty } }.first
        }
        var identity = ProviderIdentity(providerID: providerID, rawID: assertion.nameID)
        if let email = try? Validation.email(value([saml.emailAttribute].compactMap { $0 } + emailAttributes) ?? assertion.nameID) {
            identity.email = email
            identity.emailVerified = saml.trustsEmail
        }
        identity.displayName = value([saml.displayNameAttribute].compactMap { $0 } + displayNameAttributes)
        identity.rawUserInfo = assertion.attributes.mapValues { $0.count == 1 ? .string($0[0]) : .array($0.map(JSONValue.string)) }
        return identity
    }

    // MARK: Helpers

    private static func settings(of configuration: ProjectSettings.IdentityProvider) throws -> SAMLProviderSettings {
        guard let saml = configuration.saml else {
            throw FlintError(.invalidProviderConfig, "The SAML provider is not configured.")
        }
        return saml
    }

    /// The provider's SP key, for signing AuthnRequests.
    private func signingKey(_ saml: SAMLProviderSettings, projectID: String, providerID: String) throws -> _RSA.Signing.PrivateKey {
        guard let sealed = saml.sealedSPPrivateKey else {
            throw FlintError(.invalidProviderConfig, "signRequest is on but the provider has no SP key.")
        }
        let pem = try IdentityProviderConfigService.openSecret(sealed, with: secrets, projectID: projectID, providerID: providerID)
        return try _RSA.Signing.PrivateKey(pemRepresentation: pem)
    }

    /// The XML of a base64 `SAMLResponse`. Line breaks are dropped, and spaces read as `+`: an SDK that puts the
    /// response into a form body without encoding it (FirebaseAuth's IdP-initiated call does) has its `+` decoded
    /// to spaces on the way, and base64 has no spaces of its own.
    static func decode(_ encoded: String?) throws -> Data {
        guard let encoded, !encoded.isEmpty else { throw FlintError(.invalidIDPResponse, "SAMLResponse is missing.") }
        guard encoded.utf8.count <= maximumEncodedLength else {
            throw FlintError(.invalidIDPResponse, "The SAML response is too large.")
        }
        let text = String(encoded.compactMap { $0 == " " ? "+" : ($0.isNewline ? nil : $0) })
        guard let xml = Data(base64Encoded: text) else { throw FlintError(.invalidIDPResponse, "SAMLResponse is not base64.") }
        return xml
    }
}
