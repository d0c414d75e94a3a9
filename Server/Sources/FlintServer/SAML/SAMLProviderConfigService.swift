import FlintWire
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// Admin CRUD of SAML providers (`/v2/projects/{p}/inboundSamlConfigs[/{saml.…}]`, and a tenant's), as the Admin SDKs'
/// `create_saml_provider_config`, `get_…`, `list_…`, `update_…` and `delete_…` call it.
///
/// Creating a provider makes Flint's SP key for it (RSA 2048 and a self-signed certificate): the key, sealed with the
/// master key, signs AuthnRequests and decrypts encrypted assertions and is never returned; the certificate is shown
/// in `spConfig.spCertificates`, for the IdP's administrator. A PATCH keeps the key.
struct SAMLProviderConfigService: ProviderConfigKind {
    static let collection = "inboundSamlConfigs"
    static let idParameter = "inboundSamlConfigId"
    /// How long a new SP certificate is valid: about ten years, as IdPs are not told of a new one by themselves.
    static let spCertificateLifetime: TimeInterval = 10 * 365 * 86_400

    let projects: ProjectDirectory
    let secrets: SecretBox
    let clock: any FlintClock
    let rsaKeys: any RSAKeySource

    init(core: ServerCore) {
        projects = core.projects
        secrets = core.secrets
        clock = core.clock
        rsaKeys = core.rsaKeys
    }

    static func isOfThisKind(_ id: String) -> Bool { id.hasPrefix(ProviderID.samlPrefix) }

    /// `saml.` and a name, the rule of OpenID Connect providers' ids.
    static func providerID(_ raw: String?) throws -> String {
        try namedProviderID(raw, prefix: ProviderID.samlPrefix, problem: "A SAML provider's id is saml. and a name.")
    }

    static func config(_ provider: ProjectSettings.IdentityProvider, id: String, projectID: String) -> InboundSamlConfig {
        let saml = provider.saml ?? SAMLProviderSettings()
        let mapping = InboundSamlConfig.AttributeMapping(email: saml.emailAttribute, displayName: saml.displayNameAttribute)
        return InboundSamlConfig(
            name: "projects/\(projectID)/inboundSamlConfigs/\(id)",
            idpConfig: .init(idpEntityId: saml.idpEntityID, ssoUrl: saml.ssoURL, signRequest: saml.signRequest,
                             idpCertificates: saml.idpCertificates.map { .init(x509Certificate: $0) }),
            spConfig: .init(spEntityId: saml.spEntityID, callbackUri: saml.callbackURI,
                            spCertificates: saml.spCertificate.map { [.init(x509Certificate: $0, expiresAt: expiry(of: $0))] }),
            displayName: provider.displayName, enabled: provider.enabled, idpInitiatedSignIn: saml.allowsIdPInitiated,
            emailVerifiedByIdp: saml.trustsEmail, attributeMapping: mapping == .init() ? nil : mapping)
    }

    static func page(_ configs: [InboundSamlConfig], nextPageToken: String?) -> InboundSamlConfigList {
        InboundSamlConfigList(inboundSamlConfigs: configs, nextPageToken: nextPageToken)
    }

    func save(_ id: String, _ body: InboundSamlConfig, mask: UpdateMask?, caller: Caller) async throws -> InboundSamlConfig {
        // Made once, outside the compare-and-swap (which may run the change again), for a provider that has no key yet.
        let spKey = caller.project.settings.identityProviders[id]?.saml?.sealedSPPrivateKey == nil
            ? try makeSPKey(providerID: id, projectID: caller.projectID) : nil
        let project = try await projects.updateSettings(caller.projectID) { settings in
            var provider = settings.identityProviders[id] ?? ProjectSettings.IdentityProvider(enabled: false)
            var saml = provider.saml ?? SAMLProviderSettings()
            if mask.covers("enabled", present: body.enabled != nil) { provider.enabled = body.enabled ?? false }
            if mask.covers("displayName", present: body.displayName != nil) { provider.displayName = body.displayName }
            Self.apply(body, mask: mask, to: &saml)
            if saml.sealedSPPrivateKey == nil, let spKey {
                saml.spCertificate = spKey.certificate
                saml.sealedSPPrivateKey = spKey.sealedPrivateKey
            }
            try Self.validate(saml)
            provider.saml = saml
            settings.identityProviders[id] = provider
        }
        return Self.config(project.settings.identityProviders[id] ?? .init(), id: id, projectID: project.id)
    }

    /// The fields of `body` that `mask` names (without one, those present). Empty attribute names clear them.
    private static func apply(_ body: InboundSamlConfig, mask: UpdateMask?, to saml: inout SAMLProviderSettings) {
        let idp = body.idpConfig, sp = body.spConfig, mapping = body.attributeMapping
        if mask.covers("idpConfig.idpEntityId", present: idp?.idpEntityId != nil) { saml.idpEntityID = idp?.idpEntityId ?? "" }
        if mask.covers("idpConfig.ssoUrl", present: idp?.ssoUrl != nil) { saml.ssoURL = idp?.ssoUrl ?? "" }
        if mask.covers("idpConfig.signRequest", present: idp?.signRequest != nil) { saml.signRequest = idp?.signRequest ?? false }
        if mask.covers("idpConfig.idpCertificates", present: idp?.idpCertificates != nil) {
            saml.idpCertificates = (idp?.idpCertificates ?? []).compactMap(\.x509Certificate)
        }
        if mask.covers("spConfig.spEntityId", present: sp?.spEntityId != nil) { saml.spEntityID = sp?.spEntityId ?? "" }
        if mask.covers("spConfig.callbackUri", present: sp?.callbackUri != nil) { saml.callbackURI = sp?.callbackUri ?? "" }
        if mask.covers("idpInitiatedSignIn", present: body.idpInitiatedSignIn != nil) {
            saml.allowsIdPInitiated = body.idpInitiatedSignIn ?? false
        }
        if mask.covers("emailVerifiedByIdp", present: body.emailVerifiedByIdp != nil) { saml.trustsEmail = body.emailVerifiedByIdp ?? false }
        if mask.covers("attributeMapping.email", present: mapping?.email != nil) {
            saml.emailAttribute = mapping?.email.flatMap { $0.isEmpty ? nil : $0 }
        }
        if mask.covers("attributeMapping.displayName", present: mapping?.displayName != nil) {
            saml.displayNameAttribute = mapping?.displayName.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    // MARK: Validation

    /// The provider as it would be stored: every field a sign-in needs, well formed. The relying party's own
    /// fields missing is `MISSING_SAML_RELYING_PARTY_CONFIG`, as Identity Platform says; anything else `INVALID_CONFIG`.
    static func validate(_ saml: SAMLProviderSettings) throws {
        func invalid(_ detail: String) -> FlintError { FlintError(.invalidProviderConfig, detail) }
        guard !saml.idpEntityID.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw invalid("idpConfig.idpEntityId is required.")
        }
        guard let sso = URL(string: saml.ssoURL), let host = sso.host, !host.isEmpty,
              sso.scheme == "https" || (sso.scheme == "http" && isLoopback(host))
        else { throw invalid("idpConfig.ssoUrl must be an https URL (http only for localhost).") }
        guard !saml.idpCertificates.isEmpty else { throw invalid("idpConfig.idpCertificates needs at least one X.509 certificate.") }
        for (index, text) in saml.idpCertificates.enumerated() where !isCertificate(text) {
            throw invalid("idpConfig.idpCertificates[\(index)] is not an X.509 certificate (PEM or base64 DER).")
        }
        guard !saml.spEntityID.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw FlintError(.missingSAMLRelyingPartyConfig, "spConfig.spEntityId is required.")
        }
        guard !saml.callbackURI.isEmpty else { throw FlintError(.missingSAMLRelyingPartyConfig, "spConfig.callbackUri is required.") }
        guard let callback = URL(string: saml.callbackURI), callback.scheme == "https" || callback.scheme == "http",
              callback.host?.isEmpty == false
        else { throw invalid("spConfig.callbackUri must be an http(s) URL.") }
    }

    private static func isLoopback(_ host: String) -> Bool {
        ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
    }

    /// Whether the text is an X.509 certificate. swift-certificates refuses RSA keys under 2048 bits, which IdPs (and
    /// firebase-admin's own integration tests) still sign with: such a certificate is taken when it has X.509's shape
    /// (a TBSCertificate, the signature's algorithm and the signature), as Identity Platform takes it; whether its key
    /// verifies a response is the response's check.
    static func isCertificate(_ text: String) -> Bool {
        guard let der = PEM.certificateDER(text) else { return false }
        if (try? Certificate(derEncoded: der)) != nil { return true }
        guard let node = try? DER.parse(der), node.identifier == .sequence, case .constructed(let parts) = node.content else {
            return false
        }
        let fields = Array(parts)
        guard fields.count == 3, fields[0].identifier == .sequence, fields[1].identifier == .sequence,
              fields[2].identifier == .bitString, case .constructed(let tbs) = fields[0].content
        else { return false }
        return Array(tbs).count >= 6
    }

    /// When the certificate (Flint's own SP certificate, base64 DER) expires, RFC 3339.
    private static func expiry(of certificate: String) -> String? {
        PEM.certificateDER(certificate).flatMap { try? Certificate(derEncoded: $0) }?.notValidAfter.formatted(.iso8601)
    }

    // MARK: The SP key

    /// A new SP key: RSA 2048, its self-signed certificate (base64 DER; subject and issuer CN the provider's id, which
    /// unlike the SP entity ID never changes) and the key as PKCS#8 PEM, sealed for this provider's slot.
    private func makeSPKey(providerID: String, projectID: String) throws -> (certificate: String, sealedPrivateKey: String) {
        let key = try rsaKeys.makeKey()
        let signer = Certificate.PrivateKey(key)
        let name = try DistinguishedName { CommonName(providerID) }
        let now = clock.now()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signer.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Self.spCertificateLifetime),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: signer)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let sealed = try IdentityProviderConfigService.seal(
            key.pkcs8PEMRepresentation, with: secrets, projectID: projectID, providerID: providerID)
        return (Data(serializer.serializedBytes).base64EncodedString(), sealed)
    }
}

/// SAML providers for the `flint saml` commands when they open the database themselves (and for tests): the admin
/// API's own operations, for an admin `caller` of the project or of one of its tenants.
extension AuthServer {
    /// A page of the realm's SAML providers (`pageSize` 1…100) after `pageToken`.
    public func samlProviders(pageSize: Int? = nil, pageToken: String? = nil, caller: Caller) -> InboundSamlConfigList {
        assembly.samlProviderConfigs.list(pageSize: pageSize, pageToken: pageToken, caller: caller)
    }

    /// The SAML provider `providerID` names; `CONFIGURATION_NOT_FOUND` when there is none.
    public func samlProvider(_ providerID: String, caller: Caller) throws -> InboundSamlConfig {
        try assembly.samlProviderConfigs.existing(SAMLProviderConfigService.providerID(providerID), caller: caller)
    }

    /// Creates a SAML provider (and its SP key), as `POST …/inboundSamlConfigs?inboundSamlConfigId=` does.
    public func createSAMLProvider(_ providerID: String, _ config: InboundSamlConfig, caller: Caller) async throws -> InboundSamlConfig {
        try await assembly.samlProviderConfigs.create(SAMLProviderConfigService.providerID(providerID), config, caller: caller)
    }

    /// Changes the fields `updateMask` names (without one, those present in `config`), as a `PATCH` does.
    public func updateSAMLProvider(_ providerID: String, _ config: InboundSamlConfig, updateMask: String?,
                                   caller: Caller) async throws -> InboundSamlConfig {
        let service = assembly.samlProviderConfigs
        let id = try SAMLProviderConfigService.providerID(providerID)
        _ = try service.existing(id, caller: caller)
        return try await service.save(id, config, mask: updateMask.map(UpdateMask.init(_:)), caller: caller)
    }

    /// Deletes a SAML provider; `CONFIGURATION_NOT_FOUND` when there is none.
    public func deleteSAMLProvider(_ providerID: String, caller: Caller) async throws {
        try await assembly.samlProviderConfigs.delete(SAMLProviderConfigService.providerID(providerID), caller: caller)
    }
}
