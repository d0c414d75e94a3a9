import FlintServer
import FlintWire
import Foundation

/// The claims of a JWT (its middle segment), decoded without verification (tests verify separately); empty for
/// anything that is not three dot-separated segments with a JSON object in the middle. An unsigned token's third
/// segment is empty.
public func claims(of token: String?) -> [String: JSONValue] {
    guard let token else { return [:] }
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let data = Base64URL.decode(parts[1]),
          case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: data)
    else { return [:] }
    return claims
}
