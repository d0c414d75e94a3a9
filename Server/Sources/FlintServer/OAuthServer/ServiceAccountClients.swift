import Foundation
import _CryptoExtras

/// Service accounts (`flint service-accounts create`) as clients of the provider's client-credentials grant: a back-end
/// job that holds a key file gets tokens for the project's resources with `private_key_jwt`, signing its assertion
/// with the file's private key (`kid` its `private_key_id`). Its client ID is the key file's `client_email`. It may use
/// no other grant, and a revoked key authenticates nothing, its tokens included.
struct ServiceAccountClients: Sendable {
    let store: ServiceAccountStore

    /// The active service account `clientID` names in `realm`'s project, as a client, with its key; nil when there is
    /// none.
    func client(_ clientID: String, realm: String) async throws -> (client: RegisteredClient, record: ServiceAccountRecord)? {
        guard clientID.hasSuffix(".iam.flint"), clientID.utf8.count <= 320 else { return nil }
        let projectID = Realm(key: realm).projectID
        guard let record = try await store.serviceAccounts(projectID: projectID)
            .first(where: { $0.clientEmail == clientID && $0.revokedAt == nil })
        else { return nil }
        let settings = RegisteredClient.Settings(
            displayName: record.clientEmail, confidential: true, redirectURIs: [], allowedScopes: [],
            grantTypes: ["client_credentials"])
        return (RegisteredClient(clientID: clientID, realm: realm, settings: settings, secretHash: nil, createdAt: record.createdAt),
                record)
    }

    /// The account's one key, for the assertion's `kid`.
    static func key(of record: ServiceAccountRecord, kid: String) throws(OAuthError) -> JWKSCache.Key {
        guard kid == record.keyID, let key = try? _RSA.Signing.PublicKey(pemRepresentation: record.publicKeyPEM) else {
            throw ClientAssertions.refusal("kid must be the key file's private_key_id")
        }
        return .rsa(key)
    }
}
