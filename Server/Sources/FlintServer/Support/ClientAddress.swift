#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Client addresses as limits and proxies see them.
enum ClientAddress {
    /// The address's bytes: 4 for IPv4 (an IPv4-mapped IPv6 address too), 16 for IPv6; nil if it is none.
    static func bytes(_ address: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, address, &bytes) == 1 { return Array(bytes[0..<4]) }
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12..<16]) }
        return bytes
    }

    /// How per-client limits name a client. An IPv4 address is one client; an IPv6 client is its /64,
    /// since one host is given a whole /64 and can send from any address in it: `2001:db8:1:2::5` counts
    /// as `2001:db8:1:2::/64`. Anything unparsable is kept as given.
    static func limitKey(_ address: String) -> String {
        guard let bytes = bytes(address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}

/// The proxies whose `X-Forwarded-For` Flint believes (`--trusted-proxies`, `FLINT_TRUSTED_PROXIES`):
/// networks such as `10.0.0.0/8, fd00::/8` or single addresses. A request from any other peer is that
/// peer's; a request through trusted proxies is from the right-most hop that is not one of them, since
/// everything to its left the client itself may have written.
public struct TrustedProxies: Sendable, Equatable {
    struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let bits = min(remaining, 8)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if mine & mask != theirs & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let networks: [Network]

    /// No proxy is trusted: the peer is the client.
    public static let none = TrustedProxies(networks: [])

    init(networks: [Network]) { self.networks = networks }

    /// Parses a comma-separated list; throws on an entry that is no address or network.
    public init(_ list: String) throws {
        networks = try list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { entry in
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = ClientAddress.bytes(parts[0]) else { throw InvalidEntry(entry: entry) }
            let prefixLength = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefixLength, (0...bytes.count * 8).contains(prefixLength) else { throw InvalidEntry(entry: entry) }
            return Network(bytes: bytes, prefixLength: prefixLength)
        }
    }

    public struct InvalidEntry: Error, CustomStringConvertible {
        public let entry: String
        public var description: String { "\"\(entry)\" is not an IP address or network (CIDR)" }
    }

    func contains(_ address: String) -> Bool {
        guard let bytes = ClientAddress.bytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client of a request that came from `peer` carrying `forwardedFor`.
    func client(peer: String?, forwardedFor: String?) -> String? {
        guard let peer, contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !contains($0) } ?? hops.first ?? peer
    }
}
