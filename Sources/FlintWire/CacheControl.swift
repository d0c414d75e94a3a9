import Foundation

/// What a `Cache-Control` answer header says about keeping a document (published keys, here): the server's JWKS cache
/// and FlintAdmin's key sets read it alike.
public enum CacheControl {
    /// The `max-age` of a Cache-Control value in seconds; 0 for `no-store` / `no-cache`; nil when absent.
    public static func maxAge(_ cacheControl: String?) -> TimeInterval? {
        guard let cacheControl else { return nil }
        for directive in cacheControl.lowercased().split(separator: ",") {
            // `split` drops empty pieces: a directive of just `=` has none.
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts.first ?? "" {
            case "no-store", "no-cache": return 0
            case "max-age" where parts.count == 2:
                if let seconds = UInt32(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) {
                    return TimeInterval(seconds)
                }
            default: continue
            }
        }
        return nil
    }
}
