/// Why the floor refused a request or could not start.
enum FloorError: Error, CustomStringConvertible {
    case openSSL(String)
    case crypto(String)
    case sqlite(String)
    case badToken
    case usage(String)

    var description: String {
        switch self {
        case .openSSL(let doing): "OpenSSL failed \(doing)"
        case .crypto(let doing): "swift-crypto failed \(doing)"
        case .sqlite(let message): "SQLite: \(message)"
        case .badToken: "the token is malformed or its signature does not verify"
        case .usage(let message): message
        }
    }
}
