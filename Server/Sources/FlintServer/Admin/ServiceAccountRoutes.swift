import FlintWire
import Hummingbird

/// `POST /token`: the OAuth 2.0 JWT-bearer grant the key files' `token_uri` names, as Google's client
/// libraries call it (form-encoded `grant_type` and `assertion`).
extension ServiceAccounts {
    var endpoints: [Endpoint] {
        [
            Endpoint(method: .post, paths: ["/token"], contract: EndpointContract(
                credentials: .none, request: [.form(["grant_type", "assertion"])], response: .anyJSONObject)
            ) { request, _ in
                let body = String(buffer: try await JSONBody.collect(request))
                var fields: [String: String] = [:]
                for (name, value) in FormURLEncoding.decode(body) { fields[name] = value }
                return try JSONBody.response(JSONValue.object(
                    try await exchange(grantType: fields["grant_type"], assertion: fields["assertion"])))
            },
        ]
    }
}
