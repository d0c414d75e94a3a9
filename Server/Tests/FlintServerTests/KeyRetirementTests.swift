import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `flint keys retire`: an older key goes once nothing it signed can still be valid (or at once, forced), and
/// then no node publishes it or accepts its tokens.
@Suite struct KeyRetirementTests {
    /// The key ids a node publishes, checking that the JWKS and the X.509 map agree.
    private func publishedKids(_ client: TestClient) async throws -> [String] {
        let jwks = try await client.send("GET", "/.well-known/jwks.json", includeKey: false)
        let x509 = try await client.send(
            "GET", "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com", includeKey: false)
        let kids = jwks["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } ?? []
        #expect(Set(x509.body.objectValue?.keys.map { $0 } ?? []) == Set(kids))
        return kids
    }

    private func kid(of token: String?) throws -> String? {
        let header = try #require(token?.split(separator: ".").first.flatMap { Base64URL.decode($0) })
        return try JSONDecoder().decode(JSONValue.self, from: header)["kid"]?.stringValue
    }

    @Test(arguments: TestDatabase.allCases)
    func aKeyIsRetiredOnlyOnceEverythingItSignedExpired(database: TestDatabase) async throws {
        try await withServer(emulator: false, database: database) { server, client in
            let keyring = server.server.keyring
            let first = try #require(try await keyring.keys().first)
            #expect(first.isCurrent && !first.retirable)
            await #expect(throws: SigningKeyringError.currentKey(first.kid)) { try await keyring.retire(first.kid) }
            await #expect(throws: SigningKeyringError.currentKey(first.kid)) { try await keyring.retire(first.kid, force: true) }
            let oldToken = try #require(try await client.signUp().string("idToken"))

            let second = try await keyring.rotate()
            let replacedAt = try #require(try await keyring.keys().last?.createdAt)
            let retirableAt = replacedAt + SigningKeyring.retirementDelay
            #expect(SigningKeyring.retirementDelay >= TokenService.sessionCookieDurations.upperBound)
            #expect(try await keyring.keys().map(\.retirableAt) == [retirableAt, nil])
            let refusal = SigningKeyringError.mayHaveSignedLiveTokens(
                first.kid, retirableAt: Date(timeIntervalSince1970: TimeInterval(retirableAt)))
            await #expect(throws: refusal) { try await keyring.retire(first.kid) }
            server.clock.advance(seconds: TimeInterval(retirableAt - server.clock.seconds - 1))
            await #expect(throws: refusal) { try await keyring.retire(first.kid) }
            #expect(try await keyring.keys().first?.retirable == false)
            #expect(try await publishedKids(client) == [first.kid, second])

            server.clock.advance(seconds: 1)
            #expect(try await keyring.keys().first?.retirable == true)
            try await keyring.retire(first.kid)
            #expect(try await keyring.keys().map(\.kid) == [second])
            #expect(try await publishedKids(client) == [second])
            #expect(await keyring.verify(oldToken) == nil)
            #expect(try await client.lookup(idToken: oldToken).errorCode == "INVALID_ID_TOKEN")
            await #expect(throws: SigningKeyringError.unknownKey(first.kid)) { try await keyring.retire(first.kid) }
            let fresh = try await client.signUp().string("idToken")
            #expect(try kid(of: fresh) == second)
            #expect(try await client.lookup(idToken: fresh).status == 200)
        }
    }

    /// A leaked key is retired at once with `force`: its live tokens stop working on every node, those a node
    /// had already verified (and cached) too.
    @Test(arguments: TestDatabase.allCases)
    func aForcedRetirementHoldsOnEveryNodeAtOnce(database: TestDatabase) async throws {
        try await withTwoNodes(database: database) { first, clients in
            let keyring = first.server.keyring
            let token = try #require(try await clients[0].signUp().string("idToken"))
            for client in clients { #expect(try await client.lookup(idToken: token).status == 200) }
            let leaked = try #require(try kid(of: token))
            let replacement = try await keyring.rotate()
            for client in clients { #expect(try await publishedKids(client) == [leaked, replacement]) }
            await #expect(throws: SigningKeyringError.self) { try await keyring.retire(leaked) }

            try await keyring.retire(leaked, force: true)
            for client in clients {
                #expect(try await publishedKids(client) == [replacement])
                #expect(try await client.lookup(idToken: token).errorCode == "INVALID_ID_TOKEN")
            }
            let signedOnSecond = try await clients[1].signUp().string("idToken")
            #expect(try kid(of: signedOnSecond) == replacement)
            #expect(try await clients[0].lookup(idToken: signedOnSecond).status == 200)
        }
    }
}
