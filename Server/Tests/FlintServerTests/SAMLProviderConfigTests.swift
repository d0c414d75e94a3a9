import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing
import X509

/// SAML providers (`saml.…`, `inboundSamlConfigs`): their admin CRUD as the Admin SDKs call it, Flint's SP key made
/// on create and kept, and each realm's providers its own.
@Suite struct SAMLProviderConfigTests {
    /// An IdP signing certificate (firebase-admin-python's integration tests use it), as PEM and as base64 DER.
    static let idpCertificate = """
        -----BEGIN CERTIFICATE-----
        MIICZjCCAc+gAwIBAgIBADANBgkqhkiG9w0BAQ0FADBQMQswCQYDVQQGEwJ1czEL
        MAkGA1UECAwCQ0ExDTALBgNVBAoMBEFjbWUxETAPBgNVBAMMCGFjbWUuY29tMRIw
        EAYDVQQHDAlTdW5ueXZhbGUwHhcNMTgxMjA2MDc1MTUxWhcNMjgxMjAzMDc1MTUx
        WjBQMQswCQYDVQQGEwJ1czELMAkGA1UECAwCQ0ExDTALBgNVBAoMBEFjbWUxETAP
        BgNVBAMMCGFjbWUuY29tMRIwEAYDVQQHDAlTdW5ueXZhbGUwgZ8wDQYJKoZIhvcN
        AQEBBQADgY0AMIGJAoGBAKphmggjiVgqMLXyzvI7cKphscIIQ+wcv7Dld6MD4aKv
        7Jqr8ltujMxBUeY4LFEKw8Terb01snYpDotfilaG6NxpF/GfVVmMalzwWp0mT8+H
        yzyPj89mRcozu17RwuooR6n1ofXjGcBE86lqC21UhA3WVgjPOLqB42rlE9gPnZLB
        AgMBAAGjUDBOMB0GA1UdDgQWBBS0iM7WnbCNOnieOP1HIA+Oz/ML+zAfBgNVHSME
        GDAWgBS0iM7WnbCNOnieOP1HIA+Oz/ML+zAMBgNVHRMEBTADAQH/MA0GCSqGSIb3
        DQEBDQUAA4GBAF3jBgS+wP+K/jTupEQur6iaqS4UvXd//d4vo1MV06oTLQMTz+rP
        OSMDNwxzfaOn6vgYLKP/Dcy9dSTnSzgxLAxfKvDQZA0vE3udsw0Bd245MmX4+GOp
        lbrN99XP1u+lFxCSdMUzvQ/jW4ysw/Nq4JdJ0gPAyPvL6Qi/3mQdIQwx
        -----END CERTIFICATE-----

        """
    static var idpCertificateDER: String {
        idpCertificate.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    static let owner = ["Authorization": "Bearer owner"]

    /// A complete provider, as `create_saml_provider_config` sends it.
    static func provider(entityID: String = "https://idp.example.com/metadata", certificate: String = idpCertificate) -> JSONValue {
        [
            "idpConfig": ["idpEntityId": .string(entityID), "ssoUrl": "https://idp.example.com/sso",
                          "idpCertificates": [["x509Certificate": .string(certificate)]]],
            "spConfig": ["spEntityId": "https://auth.example.com", "callbackUri": "https://auth.example.com/__/auth/handler"],
            "displayName": "Corp IdP", "enabled": true,
        ]
    }

    private func call(_ client: TestClient, _ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> TestClient.Reply {
        try await client.send(method, path, body: try body.map { try JSONEncoder().encode($0) }, headers: Self.owner, includeKey: false)
    }

    @Test(arguments: TestDatabase.allCases)
    func createReadListPatchDelete(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let base = "/v2/projects/\(server.projectID)/inboundSamlConfigs"
            let created = try await call(client, "POST", base + "?inboundSamlConfigId=saml.corp", Self.provider())
            #expect(created.status == 200, "\(created.body)")
            #expect(created["name"] == .string("projects/\(server.projectID)/inboundSamlConfigs/saml.corp"))
            #expect(created["idpConfig"]?["idpEntityId"] == "https://idp.example.com/metadata")
            #expect(created["idpConfig"]?["ssoUrl"] == "https://idp.example.com/sso" && created["idpConfig"]?["signRequest"] == false)
            #expect(created["idpConfig"]?["idpCertificates"] == [["x509Certificate": .string(Self.idpCertificate)]])
            #expect(created["spConfig"]?["spEntityId"] == "https://auth.example.com")
            #expect(created["spConfig"]?["callbackUri"] == "https://auth.example.com/__/auth/handler")
            #expect(created["displayName"] == "Corp IdP" && created["enabled"] == true)
            #expect(created["idpInitiatedSignIn"] == false && created["emailVerifiedByIdp"] == false && created["attributeMapping"] == nil)

            // Flint's SP certificate: RSA 2048, self-signed for the provider, about ten years; never the key.
            let spCertificate = try #require(created["spConfig"]?["spCertificates"]?.arrayValue?.first)
            let base64 = try #require(spCertificate["x509Certificate"]?.stringValue)
            let der = try #require(Data(base64Encoded: base64))
            let certificate = try Certificate(derEncoded: Array(der))
            #expect(certificate.subject.description == "CN=saml.corp" && certificate.issuer == certificate.subject)
            #expect(certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) > 9 * 365 * 86_400)
            #expect(spCertificate["expiresAt"] == .string(certificate.notValidAfter.formatted(.iso8601)))
            #expect(!String(decoding: created.data, as: UTF8.self).contains("PRIVATE KEY"))
            let stored = try #require(try await server.server.store.settings.projectSettings(projectID: server.projectID)?.settings)
            #expect(!stored.contains("PRIVATE KEY") && stored.contains("sealedSPPrivateKey"))

            #expect(try await call(client, "POST", base + "?inboundSamlConfigId=saml.corp", Self.provider()).status == 409)
            let read = try await call(client, "GET", base + "/saml.corp")
            #expect(read.status == 200 && read["spConfig"] == created["spConfig"] && read["idpConfig"] == created["idpConfig"])
            #expect(try await call(client, "GET", base + "/saml.missing").errorCode == "CONFIGURATION_NOT_FOUND")
            #expect(try await call(client, "PATCH", base + "/saml.missing", ["enabled": false]).errorCode == "CONFIGURATION_NOT_FOUND")
            #expect(try await call(client, "DELETE", base + "/saml.missing").errorCode == "CONFIGURATION_NOT_FOUND")

            // A PATCH changes what its mask names, with Flint's fields, and keeps the SP key.
            let patched = try await call(client, "PATCH", base + "/saml.corp?updateMask="
                + "idpConfig.ssoUrl,idpConfig.signRequest,displayName,idpInitiatedSignIn,emailVerifiedByIdp,attributeMapping.email", [
                    "idpConfig": ["ssoUrl": "https://idp.example.com/sso2", "signRequest": true, "idpEntityId": "ignored"],
                    "displayName": "Corp", "idpInitiatedSignIn": true, "emailVerifiedByIdp": true,
                    "attributeMapping": ["email": "mail", "displayName": "ignored"],
                ])
            #expect(patched.status == 200, "\(patched.body)")
            #expect(patched["idpConfig"]?["ssoUrl"] == "https://idp.example.com/sso2" && patched["idpConfig"]?["signRequest"] == true)
            #expect(patched["idpConfig"]?["idpEntityId"] == "https://idp.example.com/metadata" && patched["displayName"] == "Corp")
            #expect(patched["idpInitiatedSignIn"] == true && patched["emailVerifiedByIdp"] == true)
            #expect(patched["attributeMapping"] == ["email": "mail"])
            #expect(patched["spConfig"]?["spCertificates"] == created["spConfig"]?["spCertificates"])
            // Without a mask, the fields present; the certificate as base64 DER.
            let again = try await call(client, "PATCH", base + "/saml.corp", [
                "idpConfig": ["idpCertificates": [["x509Certificate": .string(Self.idpCertificateDER)]]], "enabled": false,
            ])
            #expect(again["idpConfig"]?["idpCertificates"] == [["x509Certificate": .string(Self.idpCertificateDER)]])
            #expect(again["enabled"] == false && again["displayName"] == "Corp")
            #expect(again["spConfig"]?["spCertificates"] == created["spConfig"]?["spCertificates"])
            // Clearing the display name (the SDKs' DELETE_ATTRIBUTE: null under the mask).
            let cleared = try await call(client, "PATCH", base + "/saml.corp?updateMask=displayName", ["displayName": .null])
            #expect(cleared["displayName"] == nil && cleared["enabled"] == false)

            #expect(try await call(client, "DELETE", base + "/saml.corp").status == 200)
            #expect(try await call(client, "GET", base + "/saml.corp").errorCode == "CONFIGURATION_NOT_FOUND")
            // Made again, it has a new key.
            let recreated = try await call(client, "POST", base + "?inboundSamlConfigId=saml.corp", Self.provider())
            #expect(recreated["spConfig"]?["spCertificates"] != created["spConfig"]?["spCertificates"])
        }
    }

    /// What a provider must have, in Identity Platform's words.
    @Test func invalidProvidersAreRefused() async throws {
        try await withServer { server, client in
            let base = "/v2/projects/\(server.projectID)/inboundSamlConfigs"
            func create(_ body: JSONValue, id: String = "saml.bad") async throws -> String? {
                try await call(client, "POST", base + "?inboundSamlConfigId=\(id)", body).errorCode
            }
            func provider(_ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
                var fields = Self.provider().objectValue ?? [:]
                change(&fields)
                return .object(fields)
            }
            func idp(_ key: String, _ value: JSONValue?) -> JSONValue {
                provider { fields in
                    var idp = fields["idpConfig"]?.objectValue ?? [:]
                    idp[key] = value
                    fields["idpConfig"] = .object(idp)
                }
            }
            func sp(_ key: String, _ value: JSONValue?) -> JSONValue {
                provider { fields in
                    var sp = fields["spConfig"]?.objectValue ?? [:]
                    sp[key] = value
                    fields["spConfig"] = .object(sp)
                }
            }
            #expect(try await create(Self.provider(), id: "corp") == "INVALID_PROVIDER_ID")
            #expect(try await create(Self.provider(), id: "oidc.corp") == "INVALID_PROVIDER_ID")
            #expect(try await create(Self.provider(), id: "saml.") == "INVALID_PROVIDER_ID")
            #expect(try await create(Self.provider(), id: "saml.a%20b") == "INVALID_PROVIDER_ID")
            #expect(try await create(["displayName": "Nothing else"]) == "INVALID_CONFIG")
            #expect(try await create(idp("idpEntityId", nil)) == "INVALID_CONFIG")
            #expect(try await create(idp("ssoUrl", nil)) == "INVALID_CONFIG")
            #expect(try await create(idp("ssoUrl", "http://idp.example.com/sso")) == "INVALID_CONFIG")
            #expect(try await create(idp("ssoUrl", "not a url")) == "INVALID_CONFIG")
            #expect(try await create(idp("idpCertificates", [])) == "INVALID_CONFIG")
            #expect(try await create(idp("idpCertificates", [["x509Certificate": "bm90IGEgY2VydGlmaWNhdGU="]])) == "INVALID_CONFIG")
            #expect(try await create(idp("idpCertificates", [["x509Certificate": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"]]))
                == "INVALID_CONFIG")
            #expect(try await create(sp("spEntityId", nil)) == "MISSING_SAML_RELYING_PARTY_CONFIG")
            #expect(try await create(sp("callbackUri", nil)) == "MISSING_SAML_RELYING_PARTY_CONFIG")
            #expect(try await create(sp("callbackUri", "ftp://auth.example.com/handler")) == "INVALID_CONFIG")
            let message = try await call(client, "POST", base + "?inboundSamlConfigId=saml.bad", idp("ssoUrl", "http://idp.example.com/sso"))
            #expect(message.errorMessage == "INVALID_CONFIG : idpConfig.ssoUrl must be an https URL (http only for localhost).")
            // A local IdP may be plain http.
            #expect(try await call(client, "POST", base + "?inboundSamlConfigId=saml.local", idp("ssoUrl", "http://localhost:8080/sso")).status == 200)
            #expect(try await call(client, "POST", base + "?inboundSamlConfigId=saml.loopback", idp("ssoUrl", "http://127.0.0.1/sso")).status == 200)
            // A PATCH that would leave the provider incomplete is refused, and changes nothing.
            #expect(try await call(client, "PATCH", base + "/saml.local?updateMask=idpConfig.idpCertificates", ["idpConfig": [:]]).errorCode
                == "INVALID_CONFIG")
            #expect(try await call(client, "PATCH", base + "/saml.local?updateMask=spConfig.spEntityId", ["spConfig": ["spEntityId": ""]]).errorCode
                == "MISSING_SAML_RELYING_PARTY_CONFIG")
            #expect(try await call(client, "GET", base + "/saml.local")["idpConfig"]?["idpCertificates"]?.arrayValue?.count == 1)
            #expect(try await call(client, "GET", base + "/saml.bad").errorCode == "CONFIGURATION_NOT_FOUND")
        }
    }

    @Test func listsInPages() async throws {
        try await withServer { server, client in
            let base = "/v2/projects/\(server.projectID)/inboundSamlConfigs"
            for name in ["saml.c", "saml.a", "saml.b"] {
                #expect(try await call(client, "POST", base + "?inboundSamlConfigId=\(name)", Self.provider()).status == 200)
            }
            // Other kinds of providers are not SAML's.
            _ = try await call(client, "POST", "/v2/projects/\(server.projectID)/oauthIdpConfigs?oauthIdpConfigId=oidc.x", [
                "clientId": "x", "issuer": "https://issuer.example.com",
            ])
            func ids(_ reply: TestClient.Reply) -> [String]? {
                reply["inboundSamlConfigs"]?.arrayValue?.compactMap { $0["name"]?.stringValue?.split(separator: "/").last.map(String.init) }
            }
            let first = try await call(client, "GET", base + "?pageSize=2")
            #expect(ids(first) == ["saml.a", "saml.b"])
            let token = try #require(first.string("nextPageToken"))
            let second = try await call(client, "GET", base + "?pageSize=2&pageToken=\(token)")
            #expect(ids(second) == ["saml.c"] && second["nextPageToken"] == nil)
            #expect(ids(try await call(client, "GET", base)) == ["saml.a", "saml.b", "saml.c"])
            #expect(try await call(client, "GET", "/v2/projects/\(server.projectID)/oauthIdpConfigs")["oauthIdpConfigs"]?.arrayValue?.count == 1)
        }
    }

    /// A tenant's providers are its own: the project does not see them, nor the tenant the project's.
    @Test(arguments: TestDatabase.allCases)
    func tenantsHaveTheirOwnProviders(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let project = "/v2/projects/\(server.projectID)"
            let tenant = try #require(try await call(client, "POST", project + "/tenants", ["displayName": "Acme"]).string("tenantId"))
            let tenantConfigs = project + "/tenants/\(tenant)/inboundSamlConfigs"
            let created = try await call(client, "POST", tenantConfigs + "?inboundSamlConfigId=saml.acme", Self.provider())
            #expect(created["name"] == .string("projects/\(server.projectID)/tenants/\(tenant)/inboundSamlConfigs/saml.acme"), "\(created.body)")
            #expect(try await call(client, "POST", project + "/inboundSamlConfigs?inboundSamlConfigId=saml.corp", Self.provider()).status == 200)

            #expect(try await call(client, "GET", tenantConfigs)["inboundSamlConfigs"]?.arrayValue?.count == 1)
            #expect(try await call(client, "GET", tenantConfigs + "/saml.corp").errorCode == "CONFIGURATION_NOT_FOUND")
            #expect(try await call(client, "GET", project + "/inboundSamlConfigs")["inboundSamlConfigs"]?.arrayValue?.count == 1)
            #expect(try await call(client, "GET", project + "/inboundSamlConfigs/saml.acme").errorCode == "CONFIGURATION_NOT_FOUND")
            #expect(try await call(client, "DELETE", project + "/inboundSamlConfigs/saml.acme").errorCode == "CONFIGURATION_NOT_FOUND")
            #expect(try await call(client, "GET", tenantConfigs + "/saml.acme").status == 200)
        }
    }

    /// Only admin credentials reach the providers; an API key does not.
    @Test func adminOnly() async throws {
        try await withServer { server, client in
            let base = "/v2/projects/\(server.projectID)/inboundSamlConfigs"
            #expect(try await call(client, "POST", base + "?inboundSamlConfigId=saml.corp", Self.provider()).status == 200)
            #expect(try await client.send("GET", base).status == 403)
            #expect(try await client.send("GET", base + "/saml.corp").status == 403)
            let body = try JSONEncoder().encode(Self.provider())
            #expect(try await client.send("POST", base + "?inboundSamlConfigId=saml.other", body: body).status == 403)
            #expect(try await client.send("PATCH", base + "/saml.corp", body: body).status == 403)
            #expect(try await client.send("DELETE", base + "/saml.corp").status == 403)
            #expect(try await call(client, "GET", base + "/saml.corp").status == 200)
        }
    }
}
