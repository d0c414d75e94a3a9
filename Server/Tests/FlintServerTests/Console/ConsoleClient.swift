import AsyncHTTPClient
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import NIOCore
import NIOHTTP1

/// A browser stand-in for console tests: keeps cookies, never follows redirects (tests check them), sends
/// forms the way a browser does (URL-encoded, with the page's `Origin`), and reads tokens out of pages.
final class ConsoleClient: @unchecked Sendable {
    /// `http://127.0.0.1:port`, as a browser's `Origin` names it.
    let origin: String
    private(set) var cookies: [String: String] = [:]
    private let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                    configuration: .init(redirectConfiguration: .disallow))

    struct Page {
        var status: Int
        var headers: HTTPHeaders
        var body: String
        var location: String? { headers.first(name: "location") }
        /// The `data-page` of the body.
        var name: String? { Self.capture(#"<body data-page="([^"]*)""#, in: body) }
        var csrfToken: String? { Self.capture(#"name="csrf" value="([^"]*)""#, in: body) }
        var challenge: String? { Self.capture(#"name="challenge" value="([^"]*)""#, in: body) }
        /// The text of the element with this id.
        func text(of id: String) -> String? { Self.capture(#"id="\#(id)"[^>]*>([^<]*)<"#, in: body) }

        static func capture(_ pattern: String, in text: String) -> String? {
            guard let expression = try? NSRegularExpression(pattern: pattern),
                  let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let range = Range(match.range(at: 1), in: text)
            else { return nil }
            return String(text[range])
        }
    }

    init(_ server: TestServer) {
        origin = server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    func shutdown() async throws { try await client.shutdown() }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> Page {
        try await send(.GET, path, body: nil, headers: headers)
    }

    /// POSTs `fields`; `origin` nil leaves the header out, as older browsers and tools do.
    func post(_ path: String, _ fields: [(String, String)], origin: String? = "same",
              headers extra: [String: String] = [:]) async throws -> Page {
        var headers = extra
        headers["content-type"] = "application/x-www-form-urlencoded"
        if let origin { headers["origin"] = origin == "same" ? self.origin : origin }
        return try await send(.POST, path, body: FormURLEncoding.encode(fields), headers: headers)
    }

    private func send(_ method: HTTPMethod, _ path: String, body: String?, headers: [String: String]) async throws -> Page {
        var request = HTTPClientRequest(url: origin + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if !cookies.isEmpty {
            request.headers.add(name: "cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        for header in response.headers[canonicalForm: "set-cookie"] {
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || header.lowercased().contains("max-age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return Page(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    /// Signs in as the emulator owner, or (production) with `keyFile` the way the login page's script does.
    @discardableResult
    func signIn(keyFile: ServiceAccounts.KeyFile? = nil, now: Int64 = 0) async throws -> Page {
        let login = try await get("/console/login")
        let challenge = login.challenge ?? ""
        var fields = [("challenge", challenge)]
        if let keyFile {
            fields.append(("assertion", try Self.assertion(keyFile, audience: origin + "/console", nonce: challenge, now: now)))
        }
        return try await post("/console/login", fields)
    }

    /// A console login JWT as the page's script makes it.
    static func assertion(_ keyFile: ServiceAccounts.KeyFile, audience: String, nonce: String, now: Int64) throws -> String {
        try keyFile.signedJWT(audience: audience, now: now, lifetime: 300, claims: ["nonce": .string(nonce)])
    }
}
