@testable import FlintAdminCore
import FlintWire
import Foundation
import Testing

/// FlintAdmin's pieces that need no server: DER and PEM, JWT parsing, the requests changes become, update masks,
/// errors, and where a client points.
@Suite struct WireFormsTests {
    @Test func rsaPublicKeysAreWrittenAsPKCS1() {
        // A modulus with its top bit set gets a zero in front; the exponent 65537 does not.
        #expect([UInt8](DER.rsaPublicKey(modulus: Data([0x80, 0x01]), exponent: Data([0x01, 0x00, 0x01])))
            == [0x30, 0x0A, 0x02, 0x03, 0x00, 0x80, 0x01, 0x02, 0x03, 0x01, 0x00, 0x01])
        #expect([UInt8](DER.unsignedInteger(Data([0x00, 0x00, 0x7F]))) == [0x02, 0x01, 0x7F])
        #expect([UInt8](DER.unsignedInteger(Data())) == [0x02, 0x01, 0x00])
        // Contents of 128 bytes and more take a long-form length.
        #expect([UInt8](DER.element(0x04, Data(count: 300)).prefix(4)) == [0x04, 0x82, 0x01, 0x2C])
    }

    @Test func pkcs8WrappersAreOpenedAndMalformedOnesRefused() {
        let inner = Data([0x30, 0x03, 0x02, 0x01, 0x00])
        let algorithm = DER.element(DER.sequenceTag, Data([0x06, 0x01, 0x2A, 0x05, 0x00]))
        let info = DER.element(DER.sequenceTag, Data([0x02, 0x01, 0x00]) + algorithm + DER.element(DER.octetStringTag, inner))
        #expect(DER.pkcs1PrivateKey(fromPKCS8: info) == inner)
        #expect(DER.pkcs1PrivateKey(fromPKCS8: info + Data([0x00])) == nil, "trailing bytes")
        #expect(DER.pkcs1PrivateKey(fromPKCS8: info.dropLast(2)) == nil, "truncated")
        #expect(DER.pkcs1PrivateKey(fromPKCS8: Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF])) == nil, "a length past the end")
        #expect(PEM.der("-----BEGIN X-----\nAQID\n-----END X-----", label: "X") == Data([1, 2, 3]))
        #expect(PEM.der("-----BEGIN X-----\nAQID\n", label: "X") == nil)
        #expect(throws: RSAKeyError.self) { try RSAPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAQID\n-----END PRIVATE KEY-----") }
    }

    @Test func jwtsAreSplitOnlyWhenWellFormed() throws {
        let header = Base64URL.encode(Data(#"{"alg":"RS256","kid":"k"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"sub":"u","iat":1}"#.utf8))
        let jwt = try #require(JWT("\(header).\(claims).AQID"))
        #expect(jwt.header.kid == "k" && jwt.claims["sub"] == "u" && jwt.signature == Data([1, 2, 3]))
        #expect(jwt.signingInput == Data("\(header).\(claims)".utf8))
        let array = Base64URL.encode(Data("[1]".utf8))
        for bad in ["\(header).\(claims)", "\(header).\(claims).AQID.x", "\(header).\(array).AQID", "\(header).\(claims).A=",
                    "\(header)=.\(claims).AQID", "..", ""] {
            #expect(JWT(bad) == nil, "\(bad)")
        }
    }

    @Test func changesBecomeTheRequestsFirebaseTakes() throws {
        let update = UserUpdate(phoneNumber: .remove, displayName: .remove, photoURL: .set("https://p.example/a.png"),
                                disabled: true, customClaims: .remove, providersToUnlink: ["google.com"])
        let wire = try update.wire(uid: "u1")
        #expect(wire.localId == "u1" && wire.disableUser == true && wire.photoUrl == "https://p.example/a.png")
        #expect(wire.deleteAttribute == ["DISPLAY_NAME"] && wire.deleteProvider == ["google.com", "phone"])
        #expect(wire.customAttributes == "{}" && wire.displayName == nil && wire.returnSecureToken == nil)
        #expect(try UserUpdate().wire(uid: "u1").deleteAttribute == nil)

        #expect(try CustomClaims.encode(["role": "admin", "level": 2]) == #"{"level":2,"role":"admin"}"#)
        #expect { try CustomClaims.encode(["firebase": "x"]) } throws: { ($0 as? AdminError)?.code == .forbiddenClaim }
        #expect { try CustomClaims.encode(["big": .string(String(repeating: "x", count: 1000))]) } throws: {
            ($0 as? AdminError)?.code == .claimsTooLarge
        }
    }

    @Test func updateMasksNameTheLeavesAChangeSets() {
        let tenant = Tenant(name: "projects/p/tenants/t", displayName: "Acme", mfaConfig: .init(state: "ENABLED"),
                            testPhoneNumbers: ["+15555550100": "123456"])
        #expect(tenant.setFields == ["displayName", "mfaConfig.state", "testPhoneNumbers"])
        #expect(Tenant().setFields.isEmpty)
        #expect(AdminAuth.query(updateMask: ["a", "b.c"]) == "?updateMask=a%2Cb.c" && AdminAuth.query(updateMask: []) == "")
    }

    @Test func refusalsAreNamedAsFirebaseAdminNamesThem() {
        func refusal(_ message: String) -> AdminError {
            AdminError(refusal: ErrorEnvelope(error: .init(code: 400, message: message, errors: [], status: nil)), httpStatus: 400)
        }
        #expect(refusal("USER_NOT_FOUND").code == .userNotFound)
        let weak = refusal("WEAK_PASSWORD : Password should be at least 6 characters")
        #expect(weak.code == .invalidPassword && weak.serverCode == "WEAK_PASSWORD" && weak.message.hasPrefix("Password should"))
        let unknown = refusal("SOMETHING_NEW")
        #expect(unknown.code == .internalError && unknown.serverCode == "SOMETHING_NEW" && unknown.httpStatus == 400)
    }

    @Test func clientsPointWhereTheyAreTold() throws {
        #expect(AdminEndpoints.emulatorFromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": ""]) == nil)
        let emulator = try #require(AdminEndpoints.emulatorFromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099"]))
        #expect(emulator.api.absoluteString == "http://127.0.0.1:9099/identitytoolkit.googleapis.com" && emulator.isEmulator)
        let flint = AdminEndpoints.flint(URL(string: "https://auth.example.com/")!)
        #expect(flint.idTokenIssuerPrefix == "https://auth.example.com/" && flint.sessionCookieIssuerPrefix == "https://auth.example.com/session/")
        #expect(flint.idTokenKeys == .jwks(URL(string: "https://auth.example.com/.well-known/jwks.json")!) && !flint.isEmulator)

        #expect { try AdminAuth(credential: .emulatorOwner, endpoints: emulator, transport: NoTransport()) } throws: {
            ($0 as? AdminError)?.code == .invalidArgument
        }
        let auth = try AdminAuth(projectID: "p", credential: .emulatorOwner, endpoints: emulator, transport: NoTransport())
        #expect(auth.resource == "/v1/projects/p" && auth.tenant("t 1").resource == "/v1/projects/p/tenants/t%201")
        // Against an emulator a custom token is unsigned, as the Admin SDKs make it there.
        let token = try auth.tenant("t1").createCustomToken(uid: "u", claims: ["premium": true])
        let jwt = try #require(JWT(token))
        #expect(jwt.header.alg == "none" && jwt.header.kid == nil && jwt.signature.isEmpty)
        #expect(jwt.claims["uid"] == "u" && jwt.claims["tenant_id"] == "t1" && jwt.claims["claims"] == ["premium": true])
        #expect(jwt.claims["aud"] == .string(AdminAuth.customTokenAudience))
        #expect { try auth.createCustomToken(uid: "") } throws: { ($0 as? AdminError)?.code == .invalidArgument }
    }
}

/// A transport for clients that send nothing.
struct NoTransport: AdminTransport {
    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        throw URLError(.notConnectedToInternet)
    }
}
