import Foundation

/// The checks firebase-admin makes of a call's arguments before it sends anything, each with the code it throws
/// (firebase-admin-node's; firebase-admin-python raises `ValueError` for the same checks). They live here, in one
/// place, and each call runs them before its request is built, so a refused call sends nothing.
///
/// Swift's types already make most of firebase-admin's type checks (booleans are `Bool`, times are `Date`, hashes
/// and keys are `Data`); what is left are the checks of values.
enum Check {
    /// The most characters of a uid.
    static let maximumUIDLength = 128
    /// The most identifiers one `users(_:)` call takes.
    static let maximumLookup = 100
    /// The largest page of provider configs.
    static let maximumProviderConfigPage = 100

    static func uid(_ uid: String, code: AdminError.Code = .invalidUID) throws {
        guard !uid.isEmpty, uid.count <= maximumUIDLength else {
            throw AdminError(code, "a uid is a string of 1 to \(maximumUIDLength) characters")
        }
    }

    /// One `@`, with something on each side; the server checks the rest.
    static func email(_ email: String, code: AdminError.Code = .invalidEmail) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw AdminError(code, "\(email) is not an email address")
        }
    }

    /// A `+` and at least one letter or digit. As lax as the Admin SDKs: the server holds numbers to E.164 and
    /// normalizes them.
    static func phoneNumber(_ number: String) throws {
        guard number.hasPrefix("+"), number.unicodeScalars.contains(where: isASCIIAlphanumeric) else {
            throw AdminError(.invalidPhoneNumber, "\(number) is not a phone number in E.164 form (+ and digits)")
        }
    }

    static func password(_ password: String) throws {
        guard password.count >= 6 else { throw AdminError(.invalidPassword, "a password has at least 6 characters") }
    }

    /// Not empty, as firebase-admin-python holds it; a name is removed with `FieldChange.remove`, not with "".
    static func displayName(_ name: String) throws {
        guard !name.isEmpty else { throw AdminError(.invalidDisplayName, "a display name is not empty") }
    }

    static func photoURL(_ url: String) throws {
        guard isURL(url) else { throw AdminError(.invalidPhotoURL, "\(url) is not an http or https URL") }
    }

    static func providerID(_ id: String) throws {
        guard !id.isEmpty else { throw AdminError(.invalidProviderID, "a provider ID is not empty") }
    }

    static func providerUID(_ uid: String) throws {
        guard !uid.isEmpty else { throw AdminError(.invalidProviderUID, "a user's ID at a provider is not empty") }
    }

    static func tenantID(_ id: String) throws {
        guard !id.isEmpty else { throw AdminError(.invalidTenantID, "a tenant ID is not empty") }
    }

    /// The fields a user is created, changed or imported with, in the order firebase-admin checks them.
    static func profile(uid: String?, email: String?, phoneNumber: String?, password: String?, displayName: String?,
                        photoURL: String?) throws {
        if let displayName { try Check.displayName(displayName) }
        if let uid { try Check.uid(uid) }
        if let email { try Check.email(email) }
        if let phoneNumber { try Check.phoneNumber(phoneNumber) }
        if let password { try Check.password(password) }
        if let photoURL { try Check.photoURL(photoURL) }
    }

    /// At most `limit` users (or identifiers) in one batch call.
    static func batch(_ count: Int, atMost limit: Int) throws {
        guard count <= limit else {
            throw AdminError(.maximumUserCountExceeded, "at most \(limit) users at once; \(count) were given")
        }
    }

    /// A page of 1 to `limit` entries.
    static func pageSize(_ size: Int, atMost limit: Int) throws {
        guard (1...limit).contains(size) else {
            throw AdminError(.invalidArgument, "a page holds 1 to \(limit) entries; \(size) were asked for")
        }
    }

    /// A time after 1970, as the import API takes them (whole milliseconds since then). Not described in the
    /// message: a `Date` of NaN seconds traps when it is.
    static func timestamp(_ date: Date, code: AdminError.Code) throws {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds > 0 else { throw AdminError(code, "a time after 1970 was expected, not \(seconds) s from it") }
    }

    /// A provider config's ID: `prefix` (`oidc.`, `saml.`) and a name. An empty ID is missing, as firebase-admin
    /// reports it when a config is created; the other calls report it as invalid.
    static func providerConfigID(_ id: String, prefix: String, emptyIsMissing: Bool = false) throws {
        if id.isEmpty && emptyIsMissing { throw AdminError(.missingProviderID, "a provider config needs an ID") }
        guard id.hasPrefix(prefix) else {
            throw AdminError(.invalidProviderID, "\(id) is not a provider ID: it starts with \(prefix)")
        }
    }

    /// An http or https URL whose host is a domain name (or a bracketed IPv6 address) and whose path has no empty
    /// segments, made of URL characters only: the URLs firebase-admin-node takes as photo and continue URLs.
    static func isURL(_ text: String) -> Bool {
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ isASCIIAlphanumeric($0) || urlPunctuation.contains($0) }),
              let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.percentEncodedHost, !host.isEmpty
        else { return false }
        let hostIsValid = host.contains(":") || host.hasPrefix("[")
            ? host.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || ":.[]".unicodeScalars.contains($0) }
            : host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isHostLabel)
        guard hostIsValid else { return false }
        let path = components.percentEncodedPath
        guard path.count > 1 else { return path.isEmpty || path == "/" }
        // `/segment` repeated, with an optional `/` at the end: no empty segment in between.
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return path.hasPrefix("/") && segments.dropLast(path.hasSuffix("/") ? 1 : 0).allSatisfy { segment in
            !segment.isEmpty && segment.unicodeScalars.allSatisfy { isASCIIAlphanumeric($0) || pathPunctuation.contains($0) }
        }
    }

    /// Letters, digits and hyphens, neither first nor last.
    private static func isHostLabel(_ label: Substring) -> Bool {
        guard let first = label.unicodeScalars.first, let last = label.unicodeScalars.last,
              isASCIIAlphanumeric(first), isASCIIAlphanumeric(last) else { return false }
        return label.unicodeScalars.allSatisfy { isASCIIAlphanumeric($0) || $0 == "-" }
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
    }

    /// The characters a URL may hold besides letters and digits (RFC 3986's, and `%`).
    private static let urlPunctuation = Set(":/?#[]@!$&'()*+,;=.-_~%".unicodeScalars)
    /// Those of them a path segment may hold.
    private static let pathPunctuation = Set("_-.~!$'()*+,;=:@%".unicodeScalars)
}

extension ActionCodeSettings {
    /// firebase-admin's checks of action code settings.
    func check() throws {
        guard Check.isURL(url) else { throw AdminError(.invalidContinueURI, "\(url) is not an http or https URL") }
        if let linkDomain, linkDomain.isEmpty { throw AdminError(.invalidHostingLinkDomain, "a link domain is not empty") }
        if let iOSBundleID, iOSBundleID.isEmpty { throw AdminError(.invalidArgument, "an iOS bundle ID is not empty") }
        switch androidPackageName {
        case nil where androidInstallApp != nil || androidMinimumVersion != nil:
            throw AdminError(.missingAndroidPackageName, "the Android settings need the app's package name")
        case let name? where name.isEmpty:
            throw AdminError(.invalidArgument, "an Android package name is not empty")
        default: break
        }
        if let androidMinimumVersion, androidMinimumVersion.isEmpty {
            throw AdminError(.invalidArgument, "an Android minimum version is not empty")
        }
    }
}

extension UserImportHash {
    /// firebase-admin's checks of hash options: each algorithm's rounds (and scrypt's memory cost) in range, and a
    /// key for those that take one.
    func check() throws {
        func rounds(_ rounds: Int, _ range: ClosedRange<Int>) throws {
            guard range.contains(rounds) else {
                throw AdminError(.invalidHashRounds, "this hash takes \(range.lowerBound) to \(range.upperBound) rounds")
            }
        }
        func key(_ key: Data) throws {
            guard !key.isEmpty else { throw AdminError(.invalidHashKey, "this hash needs its key") }
        }
        func atLeastZero(_ value: Int, _ code: AdminError.Code, _ name: String) throws {
            guard value >= 0 else { throw AdminError(code, "\(name) is not negative") }
        }
        switch self {
        case .scrypt(let signerKey, _, let scryptRounds, let memoryCost):
            try key(signerKey)
            try rounds(scryptRounds, 1...8)
            guard (1...14).contains(memoryCost) else { throw AdminError(.invalidHashMemoryCost, "scrypt takes a memory cost of 1 to 14") }
        case .standardScrypt(let memoryCost, let parallelization, let blockSize, let derivedKeyLength):
            try atLeastZero(memoryCost, .invalidHashMemoryCost, "the memory cost")
            try atLeastZero(parallelization, .invalidHashParallelization, "the parallelization")
            try atLeastZero(blockSize, .invalidHashBlockSize, "the block size")
            try atLeastZero(derivedKeyLength, .invalidHashDerivedKeyLength, "the derived key length")
        case .bcrypt: break
        case .pbkdf2SHA256(let count), .pbkdfSHA1(let count): try rounds(count, 0...120_000)
        case .hmacSHA512(let signerKey), .hmacSHA256(let signerKey), .hmacSHA1(let signerKey), .hmacMD5(let signerKey):
            try key(signerKey)
        case .md5(let count): try rounds(count, 0...8192)
        case .sha1(let count), .sha256(let count), .sha512(let count): try rounds(count, 1...8192)
        }
    }
}
