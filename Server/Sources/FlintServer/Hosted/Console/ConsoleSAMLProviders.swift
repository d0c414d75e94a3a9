import FlintWire
import Foundation

/// The console's SAML providers, on the sign-in methods page: a form per provider (its IdP, Flint's SP side and
/// Flint's options) with the SP details the IdP's administrator needs (entity ID, ACS URL, SP certificate), a form
/// for a new one, and deletion. They save through `SAMLProviderConfigService`, as the admin API does.
extension ConsoleRoutes {
    // MARK: Page

    /// The section of the sign-in methods page: the realm's providers, then the form for a new one.
    func samlProvidersSection(_ context: ConsoleContext) -> String {
        let caller = context.adminCaller
        let providers = samlProviders.list(pageSize: 100, pageToken: nil, caller: caller).inboundSamlConfigs
        // A new provider refused keeps what was typed; else Flint's own ACS URL and address are offered.
        let typedID = context.query["provider-id"].flatMap { id in providers.contains { $0.name?.hasSuffix("/" + id) == true } ? nil : id }
        let handler = core.publicURL.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/__/auth/handler"
        let new = context.error != nil && typedID != nil
            ? Self.config(from: context.query)
            : InboundSamlConfig(spConfig: .init(spEntityId: core.publicURL, callbackUri: handler), enabled: true)
        return """
            <h2 id="saml-providers">SAML providers</h2>
            \(providers.map { samlProviderForm($0, context: context) }.joined(separator: "\n"))
            \(samlProviderForm(new, newID: context.error == nil ? nil : typedID, context: context))
            """
    }

    /// One provider's form (or, without a `name`, a new one's, with the id typed), its SP details and its delete button.
    private func samlProviderForm(_ config: InboundSamlConfig, newID: String? = nil, context: ConsoleContext) -> String {
        let id = config.name.flatMap { $0.split(separator: "/").last.map(String.init) }
        // Field ids: the provider's id with dots as dashes (ids are letters, digits, `-`, `_` and `.`).
        let slug = id.map { $0.replacingOccurrences(of: ".", with: "-") } ?? "saml-new"
        let idp = config.idpConfig, sp = config.spConfig
        func field(_ name: String, _ label: String, _ value: String?, placeholder: String? = nil) -> String {
            ConsoleHTML.textField("\(slug)-\(name)", name: name, label: label, value: value, placeholder: placeholder)
        }
        func check(_ name: String, _ label: String, _ checked: Bool?) -> String {
            ConsoleHTML.checkbox("\(slug)-\(name)", name: name, label: label, checked: checked == true)
        }
        let heading = id.map {
            "<h3>\(HTML.escape(config.displayName ?? $0)) <span class=\"hint\" id=\"\(slug)-status\">\(config.enabled == true ? "Enabled" : "Disabled")</span></h3>"
                + "<input type=\"hidden\" name=\"provider-id\" value=\"\(HTML.escape($0))\">"
        } ?? "<h3>New SAML provider</h3>" + field("provider-id", "Provider ID (saml. and a name)", newID, placeholder: "saml.okta")
        let form = ConsoleHTML.form("/console/sign-in/saml", context: context, id: "\(slug)-form", card: true, content: """
            \(heading)
            \(check("enabled", "Enabled", config.enabled))
            \(field("display-name", "Display name", config.displayName))
            \(field("idp-entity-id", "IdP entity ID", idp?.idpEntityId))
            \(field("sso-url", "IdP single sign-on URL", idp?.ssoUrl))
            \(ConsoleHTML.textArea("\(slug)-idp-certificates", name: "idp-certificates", label: "IdP signing certificates (PEM, one or more)",
                                   value: Self.certificateText(idp?.idpCertificates), rows: 6))
            \(field("sp-entity-id", "SP entity ID (Flint, to the IdP)", sp?.spEntityId))
            \(field("callback-url", "ACS URL (where the IdP posts its responses)", sp?.callbackUri))
            \(check("sign-request", "Sign AuthnRequests with the SP key", idp?.signRequest))
            \(check("idp-initiated", "Accept IdP-initiated sign-in", config.idpInitiatedSignIn))
            \(check("trust-email", "The IdP verifies the addresses it names", config.emailVerifiedByIdp))
            \(field("email-attribute", "Email attribute (empty: the NameID or the usual attributes)", config.attributeMapping?.email))
            \(field("display-name-attribute", "Display name attribute (empty: the usual attributes)", config.attributeMapping?.displayName))
            \(id == nil ? "" : spDetails(sp, slug: slug))
            <button type="submit" id="save-\(slug)">\(id == nil ? "Add SAML provider" : "Save")</button>
            """)
        guard let id else { return form }
        return form + ConsoleHTML.form("/console/sign-in/saml/delete", context: context, id: "\(slug)-delete-form", content: """
            <input type="hidden" name="provider-id" value="\(HTML.escape(id))">
            <button type="submit" id="delete-\(slug)">Delete \(HTML.escape(id))</button>
            """)
    }

    /// What the IdP's administrator enters there: Flint's entity ID, ACS URL and SP certificate.
    private func spDetails(_ sp: InboundSamlConfig.SpConfig?, slug: String) -> String {
        let certificate = sp?.spCertificates?.first
        return """
            <p class="hint">For the IdP: SP entity ID <code id="\(slug)-sp-entity">\(HTML.escape(sp?.spEntityId ?? ""))</code>, \
            ACS URL <code id="\(slug)-acs-url">\(HTML.escape(sp?.callbackUri ?? ""))</code>, \
            SP certificate (expires \(HTML.escape(certificate?.expiresAt ?? "—"))):</p>
            <pre id="\(slug)-sp-certificate">\(HTML.escape(certificate?.pem ?? ""))</pre>
            """
    }

    /// The stored certificates, one after the other, as the text area shows them.
    static func certificateText(_ certificates: [InboundSamlConfig.Certificate]?) -> String {
        (certificates ?? []).compactMap(\.x509Certificate).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: "\n")
    }

    /// The certificates of the text area: each PEM block, or (without one) the whole text as base64 DER.
    static func certificates(in text: String) -> [String] {
        let blocks = text.components(separatedBy: "-----END CERTIFICATE-----").compactMap { part -> String? in
            guard let start = part.range(of: "-----BEGIN CERTIFICATE-----") else { return nil }
            return String(part[start.lowerBound...]) + "-----END CERTIFICATE-----\n"
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return blocks.isEmpty ? (trimmed.isEmpty ? [] : [trimmed]) : blocks
    }

    // MARK: Actions

    /// The provider a form describes (an empty attribute name: the defaults).
    static func config(from form: Form) -> InboundSamlConfig {
        InboundSamlConfig(
            idpConfig: .init(idpEntityId: nonEmpty(form["idp-entity-id"]), ssoUrl: nonEmpty(form["sso-url"]),
                             signRequest: form["sign-request"] == "on",
                             idpCertificates: certificates(in: form["idp-certificates"] ?? "").map { .init(x509Certificate: $0) }),
            spConfig: .init(spEntityId: nonEmpty(form["sp-entity-id"]), callbackUri: nonEmpty(form["callback-url"])),
            displayName: nonEmpty(form["display-name"]), enabled: form["enabled"] == "on",
            idpInitiatedSignIn: form["idp-initiated"] == "on", emailVerifiedByIdp: form["trust-email"] == "on",
            attributeMapping: .init(email: form["email-attribute"] ?? "", displayName: form["display-name-attribute"] ?? ""))
    }

    /// Adds a provider (the form without a stored id) or saves one. Certificates unchanged in the text area keep
    /// their stored text.
    func saveSAMLProvider(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let id = try SAMLProviderConfigService.providerID(form["provider-id"]?.trimmingCharacters(in: .whitespaces))
        let caller = context.adminCaller
        let stored = try? samlProviders.existing(id, caller: caller)
        let certificatesChanged = (form["idp-certificates"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            != Self.certificateText(stored?.idpConfig?.idpCertificates)
        let config = Self.config(from: form)
        if stored == nil {
            _ = try await samlProviders.create(id, config, caller: caller)
        } else {
            var mask = "enabled,displayName,idpConfig.idpEntityId,idpConfig.ssoUrl,idpConfig.signRequest,spConfig.spEntityId,"
                + "spConfig.callbackUri,idpInitiatedSignIn,emailVerifiedByIdp,attributeMapping"
            if certificatesChanged { mask += ",idpConfig.idpCertificates" }
            _ = try await samlProviders.save(id, config, mask: UpdateMask(mask), caller: caller)
        }
        return Outcome(notice: .saved, location: "/console/sign-in")
    }

    func deleteSAMLProvider(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let id = try SAMLProviderConfigService.providerID(form["provider-id"])
        try await samlProviders.delete(id, caller: context.adminCaller)
        return Outcome(notice: .samlProviderDeleted, location: "/console/sign-in")
    }
}
