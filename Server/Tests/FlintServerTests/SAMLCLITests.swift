import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `flint saml-providers`: SAML providers made, listed, shown (with what the IdP needs), changed and deleted, on the
/// database and on a running server, for the project and for a tenant.
extension CLITests {
    @Test func samlProvidersAreCreatedShownChangedAndDeleted() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let certificate = flint.dataDirectory.appendingPathComponent("idp.pem")
        try SAMLProviderConfigTests.idpCertificate.write(to: certificate, atomically: true, encoding: .utf8)

        func exercise(_ extra: [String]) async throws {
            let created = try await flint.succeed(arguments: [
                "saml-providers", "create", "saml.okta", "--idp-entity-id", "http://www.okta.com/exk1", "--sso-url",
                "https://example.okta.com/app/sso/saml", "--idp-certificate", certificate.path, "--sp-entity-id",
                "https://auth.example.com", "--callback-url", "https://auth.example.com/__/auth/handler", "--display-name", "Okta",
            ] + extra)
            #expect(created.contains("SP entity ID:") && created.contains("https://auth.example.com/__/auth/handler"), "\(created)")
            #expect(created.contains("-----BEGIN CERTIFICATE-----") && !created.contains("PRIVATE KEY"), "\(created)")

            let listed = try await flint.succeed(arguments: ["saml-providers", "list"] + extra)
            #expect(listed.hasPrefix("PROVIDER") && listed.contains("saml.okta") && listed.contains("http://www.okta.com/exk1"))
            let shown = try await flint.json(arguments: ["saml-providers", "get", "saml.okta", "--json"] + extra)
            #expect(shown["enabled"] == true && shown["displayName"] == "Okta")
            #expect(shown["idpConfig"]?["idpCertificates"] == [["x509Certificate": .string(SAMLProviderConfigTests.idpCertificate)]])
            let spCertificate = shown["spConfig"]?["spCertificates"]?.arrayValue?.first?["x509Certificate"]

            let updated = try await flint.json(arguments: ["saml-providers", "update", "saml.okta", "--enabled", "false",
                                                           "--trust-email", "true", "--email-attribute", "mail", "--json"] + extra)
            #expect(updated["enabled"] == false && updated["emailVerifiedByIdp"] == true && updated["attributeMapping"]?["email"] == "mail")
            #expect(updated["displayName"] == "Okta" && updated["spConfig"]?["spCertificates"]?.arrayValue?.first?["x509Certificate"] == spCertificate)
            let bad = try await flint.run(arguments: ["saml-providers", "update", "saml.okta", "--sso-url", "http://example.com/sso"] + extra)
            #expect(bad.status != 0 && bad.stderr.contains("INVALID_CONFIG"), "\(bad.stderr)")
            let nothing = try await flint.run(arguments: ["saml-providers", "update", "saml.okta"] + extra)
            #expect(nothing.status != 0)

            // A tenant's providers are its own.
            let tenant = try await flint.succeed(arguments: ["tenants", "create", "--display-name", "Acme"] + extra)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let inTenant = try await flint.run(arguments: ["saml-providers", "get", "saml.okta", "--tenant", tenant] + extra)
            #expect(inTenant.status != 0 && inTenant.stderr.contains("CONFIGURATION_NOT_FOUND"), "\(inTenant.stderr)")
            try await flint.succeed(arguments: [
                "saml-providers", "create", "saml.acme", "--tenant", tenant, "--idp-entity-id", "acme-idp", "--sso-url",
                "https://idp.acme.example/sso", "--idp-certificate", certificate.path, "--sp-entity-id", "acme-sp", "--callback-url",
                "https://auth.example.com/__/auth/handler",
            ] + extra)
            let tenantList = try await flint.json(arguments: ["saml-providers", "list", "--json", "--tenant", tenant] + extra)
            #expect(tenantList.arrayValue?.compactMap { $0["idpConfig"]?["idpEntityId"]?.stringValue } == ["acme-idp"])
            #expect(try await flint.json(arguments: ["saml-providers", "list", "--json"] + extra).arrayValue?.count == 1)

            try await flint.succeed(arguments: ["saml-providers", "delete", "saml.okta"] + extra)
            let gone = try await flint.run(arguments: ["saml-providers", "get", "saml.okta"] + extra)
            #expect(gone.status != 0 && gone.stderr.contains("CONFIGURATION_NOT_FOUND"), "\(gone.stderr)")
            try await flint.succeed(arguments: ["tenants", "delete", tenant] + extra)
        }
        try await exercise([])
        try await withServer(emulator: true) { server, _ in
            try await exercise(["--server", server.baseURL.absoluteString])
        }
    }
}
