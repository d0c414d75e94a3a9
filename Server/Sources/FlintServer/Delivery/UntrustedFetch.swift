import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// GETs of URLs a stranger chose (a client's metadata document), made so that Flint cannot be turned into a way to
/// reach what only Flint can reach (server-side request forgery):
///
/// - https only, and no user name or password in the URL;
/// - the host is resolved here, and every address it resolves to must be a public one (`IPAddress.isPublic`); the
///   connection then goes to the checked address (AsyncHTTPClient's `dnsOverride`), so a second DNS answer cannot send
///   it elsewhere, while TLS still verifies the certificate against the name;
/// - redirects are followed by hand, at most `maximumRedirects`, each checked like the first URL;
/// - the whole fetch, redirects included, within `timeout`; at most `maximumBytes` of the answer read;
/// - no cookies, no credentials, no trace headers: nothing of Flint's goes along.
///
/// `allowLoopbackOrigin` (tests and local development: `FLINT_CIMD_ALLOW_LOOPBACK=1`) lets the first URL's own origin
/// be on a loopback address. A redirect elsewhere on loopback is still refused, and private and link-local addresses
/// always are.
struct UntrustedFetch: Sendable {
    let tls: TLSConfiguration
    let timeout: TimeAmount
    let maximumBytes: Int
    let maximumRedirects: Int
    let allowLoopbackOrigin: Bool

    init(configuration: DeliveryConfiguration, maximumBytes: Int = 16 * 1024, maximumRedirects: Int = 3) throws {
        tls = try DeliveryHTTP.clientTLS(extraTrustRootsPEM: configuration.extraTrustRootsPEM)
        timeout = configuration.limits.clientMetadataTimeout
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
        allowLoopbackOrigin = configuration.allowLoopbackClientMetadata
    }

    /// Why a fetch was refused or failed; `description` says so in words for the error shown.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case notHTTPS(String)
        case forbiddenAddress(host: String, address: String)
        case unresolvable(String)
        case tooManyRedirects
        case tooLarge
        case timedOut
        case unreachable(String)

        var description: String {
            switch self {
            case .notHTTPS(let url): "\(url) is not an https URL without credentials"
            case let .forbiddenAddress(host, address): "\(host) is at \(address), which is not a public address"
            case .unresolvable(let host): "\(host) does not resolve"
            case .tooManyRedirects: "it redirects too many times"
            case .tooLarge: "its answer is too large"
            case .timedOut: "it answers too slowly"
            case .unreachable(let detail): "it cannot be reached (\(detail))"
            }
        }
    }

    /// An answer other than a redirect.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    /// The answer to a GET of `url`, after any redirects.
    func get(_ url: String, accept: String) async throws(Failure) -> Answer {
        let origin = URLComponents(string: url).flatMap(Origin.init)
        let fetch = { @Sendable () async throws -> Answer in
            var next = url
            for _ in 0...maximumRedirects {
                let answer = try await hop(next, loopbackAllowed: allowLoopbackOrigin && origin != nil
                                               && URLComponents(string: next).flatMap(Origin.init) == origin, accept: accept)
                guard (300..<400).contains(answer.status), let location = answer.headers.first(name: "location") else {
                    return answer
                }
                guard let target = URL(string: location, relativeTo: URL(string: next))?.absoluteString else {
                    throw Failure.unreachable("a redirect to \(location)")
                }
                next = target
            }
            throw Failure.tooManyRedirects
        }
        do {
            return try await withDeadline(timeout, fetch)
        } catch let failure as Failure {
            throw failure
        } catch is DeadlineExceeded {
            throw .timedOut
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            // The client's own deadline is the same length as ours: under load either may fire first.
            throw .timedOut
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// One request, to the checked address of `url`'s host; a redirect is returned, not followed.
    private func hop(_ url: String, loopbackAllowed: Bool, accept: String) async throws -> Answer {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https",
              components.user == nil, components.password == nil,
              let host = components.host.map(Self.unbracketed), !host.isEmpty
        else { throw Failure.notHTTPS(url) }
        let addresses = try await Self.resolve(host)
        guard let first = addresses.first else { throw Failure.unresolvable(host) }
        if let refused = addresses.first(where: { !($0.isPublic || (loopbackAllowed && $0.isLoopback)) }) {
            throw Failure.forbiddenAddress(host: host, address: refused.text)
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout))
        configuration.dnsOverride = [host: first.text]
        let client = HTTPClient(eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: configuration)
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "accept", value: accept)
            request.headers.add(name: "user-agent", value: "Flint")
            let response = try await client.execute(request, timeout: timeout)
            let body: ByteBuffer
            do {
                body = try await response.body.collect(upTo: maximumBytes)
            } catch is NIOTooManyBytesError {
                throw Failure.tooLarge
            }
            try await client.shutdown()
            return Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Every address `host` resolves to (the system resolver, off the event loops).
    static func resolve(_ host: String) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            #else
            hints.ai_socktype = SOCK_STREAM
            #endif
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { throw Failure.unresolvable(host) }
            defer { freeaddrinfo(list) }
            var addresses: [IPAddress] = []
            for entry in sequence(first: list, next: { $0.pointee.ai_next }) {
                guard let pointer = entry.pointee.ai_addr else { continue }
                switch Int32(pointer.pointee.sa_family) {
                case AF_INET:
                    let address = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(IPAddress(bytes: withUnsafeBytes(of: address) { Array($0) }))
                case AF_INET6:
                    let address = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(IPAddress(bytes: withUnsafeBytes(of: address) { Array($0) }))
                default: continue
                }
            }
            return addresses
        }
    }

    /// Scheme, host and port: what a redirect must keep to stay where the loopback allowance applies.
    private struct Origin: Equatable {
        let scheme: String, host: String, port: Int

        init?(_ components: URLComponents) {
            guard let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased() else { return nil }
            (self.scheme, self.host, port) = (scheme, host, components.port ?? 443)
        }
    }
}

/// An IPv4 (4 bytes) or IPv6 (16 bytes) address, and whether the open internet could answer at it.
struct IPAddress: Sendable, Equatable {
    let bytes: [UInt8]

    /// The address as text, as a connection target takes it.
    var text: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// 127.0.0.0/8 and ::1, and their IPv4-mapped forms.
    var isLoopback: Bool {
        if let v4 = embeddedIPv4 { return v4.isLoopback }
        if bytes.count == 4 { return bytes[0] == 127 }
        return bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// Not in any special-purpose range (RFC 6890 and its updates): not loopback, private (10/8, 172.16/12,
    /// 192.168/16, fc00::/7), link-local (169.254/16, fe80::/10, where cloud metadata services answer), shared
    /// (100.64/10), unspecified, documentation, benchmarking, multicast or reserved. IPv4-mapped and NAT64
    /// (64:ff9b::/96) IPv6 addresses are judged by the IPv4 address inside; other IPv6 ones must be global unicast.
    var isPublic: Bool {
        if let v4 = embeddedIPv4 { return v4.isPublic }
        if bytes.count == 4 {
            let (a, b, c) = (bytes[0], bytes[1], bytes[2])
            switch a {
            case 0, 10, 127: return false
            case 100 where (64...127).contains(b): return false
            case 169 where b == 254: return false
            case 172 where (16...31).contains(b): return false
            case 192 where b == 168 || (b == 0 && (c == 0 || c == 2)) || (b == 88 && c == 99): return false
            case 198 where b == 18 || b == 19 || (b == 51 && c == 100): return false
            case 203 where b == 0 && c == 113: return false
            case 224...255: return false
            default: return true
            }
        }
        // Global unicast is 2000::/3; of it, documentation (2001:db8::/32), ORCHID and benchmarking (2001::/23's
        // special blocks, 2001:2::/48, 2001:10::/28) and 6to4's relay are refused too.
        guard bytes[0] & 0xE0 == 0x20 else { return false }
        if bytes[0] == 0x20, bytes[1] == 0x01 {
            if bytes[2] == 0x0D, bytes[3] == 0xB8 { return false }
            if bytes[2] == 0x00, bytes[3] < 0x30 { return false }
        }
        return true
    }

    /// The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address.
    private var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let head = Array(bytes[0..<12])
        let mapped = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]
        let nat64: [UInt8] = [0x00, 0x64, 0xFF, 0x9B] + [UInt8](repeating: 0, count: 8)
        return head == mapped || head == nat64 ? IPAddress(bytes: Array(bytes[12...])) : nil
    }
}
