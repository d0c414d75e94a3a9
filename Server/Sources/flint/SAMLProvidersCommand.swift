import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// `flint saml-providers`: the SAML providers of the project, or of a tenant (`--tenant`), as the Admin SDKs'
/// `*_saml_provider_config` calls manage them, on the database or on a running server (`--server`).
struct SAMLProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "saml-providers",
        abstract: "Create, list, show, change and delete the SAML providers of the project (--project) or of a tenant (--tenant).",
        discussion: """
            A provider's id is saml. and a name (saml.okta). Flint makes its service-provider key when the provider is \
            created: `get` prints the SP entity ID, the ACS URL and the SP certificate to give the IdP's administrator.
            """,
        subcommands: [Create.self, List.self, Get.self, Update.self, Delete.self])

    /// The settings `create` and `update` take; `update` changes only those given.
    struct Settings: ParsableArguments {
        @Option(name: .customLong("idp-entity-id"), help: "The IdP's entity ID (the Issuer of its responses).")
        var idpEntityID: String?
        @Option(name: .customLong("sso-url"), help: "The IdP's single sign-on URL (https; http only for localhost).")
        var ssoURL: String?
        @Option(name: .customLong("idp-certificate"), help: ArgumentHelp(
            "A file with an IdP signing certificate (PEM or base64 DER); repeat for several. Replaces the IdP's certificates.",
            valueName: "path"))
        var idpCertificateFiles: [String] = []
        @Option(name: .customLong("sp-entity-id"), help: "Flint's entity ID to the IdP: the audience its assertions name.")
        var spEntityID: String?
        @Option(name: .customLong("callback-url"), help: "The ACS URL the IdP posts its responses to (Flint's /__/auth/handler).")
        var callbackURL: String?
        @Option(name: .customLong("display-name"), help: "The provider's name.") var displayName: String?
        @Option(name: .customLong("enabled"), help: "Whether users may sign in with it (true or false).") var enabled: Bool?
        @Option(name: .customLong("sign-requests"), help: "Whether AuthnRequests are signed with the SP key (true or false).")
        var signRequest: Bool?
        @Option(name: .customLong("idp-initiated"), help: "Whether IdP-initiated sign-in is taken (true or false).")
        var idpInitiated: Bool?
        @Option(name: .customLong("trust-email"), help: "Whether the IdP's addresses count as verified (true or false).")
        var trustsEmail: Bool?
        @Option(name: .customLong("email-attribute"), help: "The assertion attribute holding the email (empty: the defaults).")
        var emailAttribute: String?
        @Option(name: .customLong("display-name-attribute"), help: "The attribute holding the display name (empty: the defaults).")
        var displayNameAttribute: String?

        /// The configuration the flags give, and the field paths they name (an `updateMask`).
        func config() throws -> (config: InboundSamlConfig, paths: [String]) {
            let certificates = try idpCertificateFiles.map { path in
                do {
                    return InboundSamlConfig.Certificate(x509Certificate: try String(contentsOfFile: path, encoding: .utf8))
                } catch {
                    throw ValidationError("Cannot read the certificate \(path): \(error.localizedDescription)")
                }
            }
            let config = InboundSamlConfig(
                idpConfig: .init(idpEntityId: idpEntityID, ssoUrl: ssoURL, signRequest: signRequest,
                                 idpCertificates: certificates.isEmpty ? nil : certificates),
                spConfig: .init(spEntityId: spEntityID, callbackUri: callbackURL), displayName: displayName, enabled: enabled,
                idpInitiatedSignIn: idpInitiated, emailVerifiedByIdp: trustsEmail,
                attributeMapping: .init(email: emailAttribute, displayName: displayNameAttribute))
            let named: [(String, Bool)] = [
                ("idpConfig.idpEntityId", idpEntityID != nil), ("idpConfig.ssoUrl", ssoURL != nil),
                ("idpConfig.signRequest", signRequest != nil), ("idpConfig.idpCertificates", !certificates.isEmpty),
                ("spConfig.spEntityId", spEntityID != nil), ("spConfig.callbackUri", callbackURL != nil),
                ("displayName", displayName != nil), ("enabled", enabled != nil), ("idpInitiatedSignIn", idpInitiated != nil),
                ("emailVerifiedByIdp", trustsEmail != nil), ("attributeMapping.email", emailAttribute != nil),
                ("attributeMapping.displayName", displayNameAttribute != nil),
            ]
            return (config, named.filter(\.1).map(\.0))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a SAML provider and print what the IdP needs to know of Flint.",
            discussion: "It needs --idp-entity-id, --sso-url, --idp-certificate, --sp-entity-id and --callback-url; it is enabled unless --enabled false.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The provider's id: saml. and a name.") var providerID: String
        @OptionGroup var settings: Settings
        @Flag(help: "Print the provider as JSON instead.") var json = false

        func run() async throws {
            var config = try settings.config().config
            config.enabled = config.enabled ?? true
            let created = try await options.withBackend { backend in try await backend.createSAMLProvider(providerID, config) }
            try SAMLProvidersCommand.show(created, json: json)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the SAML providers.")
        @OptionGroup var options: AdminOptions
        @Flag(help: "Print a JSON array instead.") var json = false

        func run() async throws {
            let providers = try await options.withBackend { backend in try await backend.allSAMLProviders() }
            if json { return try Output.json(providers) }
            Output.table(header: ["PROVIDER", "DISPLAY NAME", "ENABLED", "IDP ENTITY ID", "SP ENTITY ID"], rows: providers.map {
                [SAMLProvidersCommand.id(of: $0), $0.displayName ?? "", $0.enabled == true ? "yes" : "no",
                 $0.idpConfig?.idpEntityId ?? "", $0.spConfig?.spEntityId ?? ""]
            })
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a SAML provider: the IdP's settings, and Flint's SP entity ID, ACS URL and SP certificate (PEM).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The provider's id.") var providerID: String
        @Flag(help: "Print the provider as JSON instead.") var json = false

        func run() async throws {
            let provider = try await options.withBackend { backend in try await backend.samlProvider(providerID) }
            try SAMLProvidersCommand.show(provider, json: json)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the settings given of a SAML provider (its SP key stays).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The provider's id.") var providerID: String
        @OptionGroup var settings: Settings
        @Flag(help: "Print the provider as JSON instead.") var json = false

        func run() async throws {
            let (config, paths) = try settings.config()
            guard !paths.isEmpty else { throw ValidationError("Name at least one setting to change.") }
            let updated = try await options.withBackend { backend in
                try await backend.updateSAMLProvider(providerID, config, updateMask: paths.joined(separator: ","))
            }
            try SAMLProvidersCommand.show(updated, json: json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a SAML provider (and its SP key).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The provider's id.") var providerID: String

        func run() async throws {
            try await options.withBackend { backend in try await backend.deleteSAMLProvider(providerID) }
            Output.note("Deleted SAML provider \(providerID).")
        }
    }

    /// The provider id, the last part of its `name`.
    static func id(of config: InboundSamlConfig) -> String {
        config.name.flatMap { $0.split(separator: "/").last.map(String.init) } ?? ""
    }

    /// The provider as JSON, or as labelled lines and the SP certificate's PEM (what the IdP's administrator needs).
    static func show(_ config: InboundSamlConfig, json: Bool) throws {
        if json { return try Output.json(config) }
        let idp = config.idpConfig, sp = config.spConfig
        let spCertificate = sp?.spCertificates?.first
        func onOff(_ flag: Bool?) -> String { flag == true ? "yes" : "no" }
        Output.fields([
            ("Provider", id(of: config)), ("Display name", config.displayName), ("Enabled", onOff(config.enabled)),
            ("IdP entity ID", idp?.idpEntityId), ("SSO URL", idp?.ssoUrl),
            ("IdP certificates", "\(idp?.idpCertificates?.count ?? 0)"), ("Signs requests", onOff(idp?.signRequest)),
            ("IdP-initiated", onOff(config.idpInitiatedSignIn)), ("Trusts email", onOff(config.emailVerifiedByIdp)),
            ("Email attribute", config.attributeMapping?.email), ("Name attribute", config.attributeMapping?.displayName),
            ("SP entity ID", sp?.spEntityId), ("ACS URL", sp?.callbackUri), ("SP certificate expires", spCertificate?.expiresAt),
        ])
        if let pem = spCertificate?.pem { print(pem) }
    }
}

extension AdminBackend {
    /// Every SAML provider of the realm, read a page at a time.
    func allSAMLProviders() async throws -> [InboundSamlConfig] {
        try await allPages { pageToken in
            let page = try await samlProviders(pageToken: pageToken)
            return (page.inboundSamlConfigs, page.nextPageToken)
        }
    }
}

extension LocalBackend {
    func samlProviders(pageToken: String?) async throws -> InboundSamlConfigList {
        server.samlProviders(pageToken: pageToken, caller: caller)
    }

    func samlProvider(_ providerID: String) async throws -> InboundSamlConfig {
        try server.samlProvider(providerID, caller: caller)
    }

    func createSAMLProvider(_ providerID: String, _ config: InboundSamlConfig) async throws -> InboundSamlConfig {
        try await server.createSAMLProvider(providerID, config, caller: caller)
    }

    func updateSAMLProvider(_ providerID: String, _ change: InboundSamlConfig, updateMask: String) async throws -> InboundSamlConfig {
        try await server.updateSAMLProvider(providerID, change, updateMask: updateMask, caller: caller)
    }

    func deleteSAMLProvider(_ providerID: String) async throws {
        try await server.deleteSAMLProvider(providerID, caller: caller)
    }
}

extension RemoteBackend {
    func samlProviders(pageToken: String?) async throws -> InboundSamlConfigList {
        let query = pageToken.map { "?pageToken=" + FormURLEncoding.escape($0) } ?? ""
        let path = "/v2/\(auth.resourceName)/inboundSamlConfigs" + query
        return try await call("GET", path, as: InboundSamlConfigList.self)
    }

    func samlProvider(_ providerID: String) async throws -> InboundSamlConfig {
        try await remote { try await auth.samlProviderConfig(id: providerID) }
    }

    func createSAMLProvider(_ providerID: String, _ config: InboundSamlConfig) async throws -> InboundSamlConfig {
        try await remote { try await auth.createSAMLProviderConfig(id: providerID, config) }
    }

    func updateSAMLProvider(_ providerID: String, _ change: InboundSamlConfig, updateMask: String) async throws -> InboundSamlConfig {
        try await remote { try await auth.updateSAMLProviderConfig(id: providerID, change, updateMask: Self.fields(updateMask)) }
    }

    func deleteSAMLProvider(_ providerID: String) async throws {
        try await remote { try await auth.deleteSAMLProviderConfig(id: providerID) }
    }
}
