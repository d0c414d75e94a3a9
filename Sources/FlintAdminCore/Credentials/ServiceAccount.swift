import Foundation

/// A service-account key file, as Google's console and `flint service-accounts create` write it. Its private key
/// signs custom tokens and the OAuth2 grant that gets the access tokens admin calls carry.
public struct ServiceAccount: Sendable {
    public let projectID: String
    public let clientEmail: String
    public let privateKeyID: String
    /// Where the JWT-bearer grant goes: Google's `https://oauth2.googleapis.com/token`, or a Flint server's `/token`
    /// (the key file's `token_uri`; set it to reach a server whose address changed since the key was made).
    public var tokenURI: URL
    let privateKey: RSAPrivateKey

    /// Reads a key file's JSON. Throws `invalidCredential` when it is not a service account's or its key is unusable.
    public init(json: Data) throws {
        struct KeyFile: Decodable {
            var type: String?
            var project_id: String?
            var private_key_id: String?
            var private_key: String?
            var client_email: String?
            var token_uri: String?
        }
        guard let file = try? JSONDecoder().decode(KeyFile.self, from: json), file.type == "service_account",
              let projectID = file.project_id, let clientEmail = file.client_email, let privateKeyID = file.private_key_id,
              let pem = file.private_key
        else { throw AdminError(.invalidCredential, "not a service-account key file") }
        guard let tokenURI = URL(string: file.token_uri ?? "https://oauth2.googleapis.com/token") else {
            throw AdminError(.invalidCredential, "the key file's token_uri is not a URL")
        }
        do {
            privateKey = try RSAPrivateKey(pem: pem)
        } catch {
            throw AdminError(.invalidCredential, "the key file's private key cannot be used: \(error)")
        }
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
    }

    /// Reads a key file.
    public init(contentsOf file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw AdminError(.invalidCredential, "cannot read \(file.path): \(error.localizedDescription)")
        }
        try self.init(json: data)
    }
}
