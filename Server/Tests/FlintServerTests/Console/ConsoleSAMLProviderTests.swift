import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The console's SAML providers: added, shown with Flint's SP details, changed (the SP key kept), refused in the
/// admin API's words, deleted; inside an open tenant they are the tenant's.
extension ConsoleTests {
    @Test func samlProvidersAreAddedEditedAndDeleted() async throws {
        try await withConsole(emulator: true) { server, console in
            #expect(try await console.signIn().location == "/console/users")
            let page = try await console.get("/console/sign-in")
            #expect(page.body.contains("id=\"saml-new-form\""))
            let token = try #require(page.csrfToken)
            let fields: [(String, String)] = [
                ("csrf", token), ("provider-id", "saml.corp"), ("enabled", "on"), ("display-name", "Corp"),
                ("idp-entity-id", "https://idp.corp.example"), ("sso-url", "https://idp.corp.example/sso"),
                ("idp-certificates", SAMLProviderConfigTests.idpCertificate), ("sp-entity-id", "https://auth.example.com"),
                ("callback-url", "https://auth.example.com/__/auth/handler"), ("trust-email", "on"), ("email-attribute", "mail"),
            ]
            // Refused in the admin API's words, with what was typed kept.
            let refused = try await console.post("/console/sign-in/saml", fields.map { $0.0 == "sso-url" ? ($0.0, "http://idp.corp.example/sso") : $0 })
            #expect(refused.status == 400 && refused.text(of: "error") == "idpConfig.ssoUrl must be an https URL (http only for localhost).", "\(refused.body)")
            #expect(refused.body.contains("value=\"saml.corp\"") && refused.body.contains("value=\"https://idp.corp.example\""))

            let added = try await console.post("/console/sign-in/saml", fields)
            #expect(added.status == 303 && added.location == "/console/sign-in?notice=saved", "\(added.body)")
            let admin = try await server.server.adminCaller(projectID: server.projectID)
            let stored = try server.server.samlProvider("saml.corp", caller: admin)
            #expect(stored.enabled == true && stored.emailVerifiedByIdp == true && stored.attributeMapping?.email == "mail")
            #expect(stored.idpConfig?.idpCertificates?.first?.x509Certificate == SAMLProviderConfigTests.idpCertificate)
            let spCertificate = try #require(stored.spConfig?.spCertificates?.first?.pem)

            // Shown with what the IdP's administrator needs.
            let shown = try await console.get("/console/sign-in")
            #expect(shown.text(of: "saml-corp-status") == "Enabled")
            #expect(shown.text(of: "saml-corp-sp-entity") == "https://auth.example.com")
            #expect(shown.text(of: "saml-corp-acs-url") == "https://auth.example.com/__/auth/handler")
            #expect(shown.text(of: "saml-corp-sp-certificate") == spCertificate)
            #expect(!shown.body.contains("PRIVATE KEY"))

            // Saved with the certificates unchanged: their stored text and the SP key stay.
            let edited = fields.filter { $0.0 != "enabled" && $0.0 != "provider-id" }
                .map { $0.0 == "idp-certificates" ? ($0.0, "\n" + SAMLProviderConfigTests.idpCertificate + "\n") : $0 }
            #expect(try await console.post("/console/sign-in/saml", [("provider-id", "saml.corp")] + edited).status == 303)
            let saved = try server.server.samlProvider("saml.corp", caller: try await server.server.adminCaller(projectID: server.projectID))
            #expect(saved.enabled == false && saved.idpConfig?.idpCertificates == stored.idpConfig?.idpCertificates)
            #expect(saved.spConfig?.spCertificates == stored.spConfig?.spCertificates)
            #expect(try await console.get("/console/sign-in").text(of: "saml-corp-status") == "Disabled")

            let deleted = try await console.post("/console/sign-in/saml/delete", [("csrf", token), ("provider-id", "saml.corp")])
            #expect(deleted.status == 303 && deleted.location == "/console/sign-in?notice=samlProviderDeleted")
            #expect(server.server.samlProviders(caller: try await server.server.adminCaller(projectID: server.projectID))
                .inboundSamlConfigs.isEmpty)
            #expect(!(try await console.get("/console/sign-in").body.contains("saml-corp-form")))
        }
    }
}
