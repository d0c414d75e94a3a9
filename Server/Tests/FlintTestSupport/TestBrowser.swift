import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a browser does with HTTP, for tests that walk a redirect flow: one GET at a time with redirects not followed,
/// so each hop can be checked, or every hop followed until the browser leaves the web (an app's URL scheme).
public enum TestBrowser {
    public struct Page: Sendable {
        public let url: URL
        public let status: Int
        /// Lowercased names.
        public let headers: [String: String]
        public let body: String

        /// Where a redirect goes, resolved against the page's URL.
        public var location: URL? {
            guard (300..<400).contains(status), let location = headers["location"] else { return nil }
            return URL(string: location, relativeTo: url)?.absoluteURL
        }
    }

    private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    /// One GET of `url`; a redirect is returned, not followed.
    public static func get(_ url: URL) async throws -> Page {
        try await load(URLRequest(url: url))
    }

    /// A form's submission as a browser sends it (`application/x-www-form-urlencoded` POST), e.g. the HTTP-POST
    /// binding's self-submitting form of a SAML IdP; a redirect is returned, not followed.
    public static func post(_ url: URL, form fields: [(String, String)]) async throws -> Page {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "content-type")
        request.httpBody = Data(fields.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")"
        }.joined(separator: "&").utf8)
        return try await load(request)
    }

    private static func load(_ request: URLRequest) async throws -> Page {
        let url = request.url!
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Page(url: url, status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
    }

    /// Follows redirects from `url` until an answer is not a redirect, the next URL is not http(s), or `stop` says the
    /// next URL is the app's (a page not served in the test). Returns the pages opened, in order, and the URL the browser
    /// ends on (the last page's, or the app's URL it was sent to).
    public static func follow(_ url: URL, hops: Int = 8, stop: (URL) -> Bool = { _ in false }) async throws -> (pages: [Page], end: URL) {
        var pages: [Page] = []
        var next = url
        for _ in 0..<hops {
            guard next.scheme == "http" || next.scheme == "https", !stop(next) else { return (pages, next) }
            let page = try await get(next)
            pages.append(page)
            guard let location = page.location else { return (pages, next) }
            next = location
        }
        throw URLError(.httpTooManyRedirects)
    }
}
