import Foundation
import NIOConcurrencyHelpers

/// `GET /openapi.json` (in emulator mode also the official emulator's `/emulator/openapi.json`): the OpenAPI
/// document of every endpoint the server has, this one included. Built on first request and again only if
/// the server's public URL (the document's `servers`) changes.
enum OpenAPIRoutes {
    static func adding(to endpoints: [Endpoint], policy: ModePolicy, address: PublicAddress) -> [Endpoint] {
        let paths = ["/openapi.json"] + (policy.servesEmulatorEndpoints ? ["/emulator/openapi.json"] : [])
        let described = NIOLockedValueBox<[Endpoint]>([])
        let cache = NIOLockedValueBox<(url: String, document: Data)?>(nil)
        let mode = policy.mode
        let endpoint = Endpoint(method: .get, paths: paths, contract: .init(credentials: .none, response: .anyJSONObject)) { _, _ in
            let url = address.url
            let document = try cache.withLockedValue { cached in
                if let cached, cached.url == url { return cached.document }
                let document = try OpenAPIDocument(endpoints: described.withLockedValue { $0 }, mode: mode, serverURL: url).encoded()
                cached = (url, document)
                return document
            }
            return JSONBody.response(data: document)
        }
        let all = endpoints + [endpoint]
        described.withLockedValue { $0 = all }
        return all
    }
}
