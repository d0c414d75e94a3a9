import FlintWire
import Foundation

/// The CSV form of `firebase auth:export --format=csv` (and what `auth:import` reads): one row per user, no
/// header, 27 columns — uid, email, email verified, password hash, salt, display name, photo URL, then four
/// columns (id, email, name, photo) for each of Google, Facebook, Twitter and GitHub, then disabled,
/// created at, last sign-in at (epoch ms) and phone number. CSV has no room for other providers, custom
/// claims or second factors: the JSON form keeps those.
enum ExportCSV {
    static let columnCount = 27
    /// Where each provider's four columns start.
    static let providerColumns = ["google.com": 7, "facebook.com": 11, "twitter.com": 15, "github.com": 19]

    static func row(_ user: ExportedUser) -> [String] {
        var row = Array(repeating: "", count: columnCount)
        row[0] = user.localId
        row[1] = user.email ?? ""
        row[2] = String(user.emailVerified ?? false)
        row[3] = user.passwordHash ?? ""
        row[4] = user.salt ?? ""
        row[5] = user.displayName ?? ""
        row[6] = user.photoUrl ?? ""
        for provider in user.providerUserInfo ?? [] {
            guard let start = providerColumns[provider.providerId] else { continue }
            row[start] = provider.rawId ?? ""
            row[start + 1] = provider.email ?? ""
            row[start + 2] = provider.displayName ?? ""
            row[start + 3] = provider.photoUrl ?? ""
        }
        row[23] = String(user.disabled ?? false)
        row[24] = user.createdAt ?? ""
        row[25] = user.lastSignedInAt ?? ""
        row[26] = user.phoneNumber ?? ""
        return row
    }

    /// The user a row describes; nil for a row too short to be one.
    static func user(_ row: [String]) -> ExportedUser? {
        guard row.count >= columnCount, !row[0].isEmpty else { return nil }
        func value(_ column: Int) -> String? { row[column].isEmpty ? nil : row[column] }
        var user = ExportedUser(localId: row[0])
        user.email = value(1)
        user.emailVerified = row[2].lowercased() == "true"
        user.passwordHash = value(3)
        user.salt = value(4)
        user.displayName = value(5)
        user.photoUrl = value(6)
        user.disabled = row[23].lowercased() == "true"
        user.createdAt = value(24)
        user.lastSignedInAt = value(25)
        user.phoneNumber = value(26)
        let providers = providerColumns.sorted { $0.value < $1.value }.compactMap { id, start -> ExportedUser.Provider? in
            guard let rawID = value(start) else { return nil }
            return .init(providerId: id, rawId: rawID, email: value(start + 1), displayName: value(start + 2),
                         photoUrl: value(start + 3))
        }
        user.providerUserInfo = providers.isEmpty ? nil : providers
        return user
    }

    /// RFC 4180 text: a field with a comma, quote or line break is quoted, quotes doubled.
    static func encode(_ rows: [[String]]) -> String {
        rows.map { row in
            row.map { field in
                // `isNewline`: Swift reads "\r\n" as one Character, equal to neither "\r" nor "\n".
                field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline })
                    ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
            }.joined(separator: ",")
        }.joined(separator: "\n") + (rows.isEmpty ? "" : "\n")
    }

    /// The rows of RFC 4180 text (quoted fields may hold commas, quotes and line breaks); blank lines are skipped.
    static func decode(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = text.makeIterator()
        var pending: Character? = nil
        func endRow() {
            row.append(field)
            if row != [""] { rows.append(row) }
            row = []
            field = ""
        }
        while let character = pending ?? characters.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    let next = characters.next()
                    if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",": row.append(field); field = ""
            case "\n", "\r\n", "\r": endRow()
            default: field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty { endRow() }
        return rows
    }
}
