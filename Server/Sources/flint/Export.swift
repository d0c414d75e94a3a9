import ArgumentParser
import FlintServer
import FlintWire
import Foundation

extension Users {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every user of the project to a JSON or CSV file in the format of `firebase auth:export`.",
            discussion: """
                Password hashes and salts are written base64, as stored, and phone second factors as mfaInfo \
                (TOTP factors are not exported: their secrets stay on the server). Passkeys are written as \
                passkeyInfo, with their public keys and counters, so `flint users import` brings them to another \
                server (the JSON form only: the CSV form has no column for them). The project's scrypt \
                parameters, which `firebase auth:import` needs to keep those passwords working, are printed to stderr.
                """)
        @OptionGroup var options: AdminOptions
        @Argument(help: "The file to write, e.g. users.json or users.csv.") var file: String
        @Option(help: "json or csv (default: the file's extension, else json).") var format: UserFileFormat?

        func run() async throws {
            // Written a page at a time, so that exporting millions of users takes little memory.
            var writer = try UserFileWriter(path: file, format: format ?? UserFileFormat(path: file))
            let (count, hashFlags): (Int, String)
            do {
                (count, hashFlags) = try await options.withBackend { backend in
                    var count = 0
                    try await backend.forEachPage { page in
                        try writer.write(page.map(ExportedUser.init))
                        count += page.count
                        if page.count == AccountService.maximumBatch { Output.note("Read \(count) users") }
                    }
                    return (count, try await backend.passwordHashFlags())
                }
                try writer.finish()
            } catch {
                writer.discard()
                throw error
            }
            Output.note("Exported \(count) users to \(file).")
            Output.note("Password hash parameters (for firebase auth:import):\n  \(hashFlags)")
        }
    }
}

/// The two forms of `firebase auth:export` files.
enum UserFileFormat: String, ExpressibleByArgument, CaseIterable {
    case json, csv

    /// The form a file's extension names (json when it names neither).
    init(path: String) {
        self = path.lowercased().hasSuffix(".csv") ? .csv : .json
    }
}

/// One user as `firebase auth:export` writes it; absent fields are left out.
struct ExportedUser: Codable {
    struct Provider: Codable {
        var providerId: String
        var rawId: String?
        var email: String?
        var displayName: String?
        var photoUrl: String?
    }

    /// A phone second factor (TOTP secrets are never exported, as with Firebase).
    struct SecondFactor: Codable {
        var mfaEnrollmentId: String
        var displayName: String?
        var phoneInfo: String
        var enrolledAt: String?
    }

    var localId: String
    var email: String?
    var emailVerified: Bool?
    var passwordHash: String?
    var salt: String?
    var displayName: String?
    var photoUrl: String?
    var phoneNumber: String?
    var disabled: Bool?
    var createdAt: String?
    var lastSignedInAt: String?
    var customAttributes: String?
    var providerUserInfo: [Provider]?
    var mfaInfo: [SecondFactor]?
    /// Passkeys with Flint's fields (the key, its algorithm and counter), which an admin's listing gives; not in
    /// Firebase's files, and not in the CSV form.
    var passkeyInfo: [PasskeyInfo]?

    init(localId: String) {
        self.localId = localId
    }

    init(_ user: UserRecord) {
        localId = user.localId
        email = user.email
        emailVerified = user.emailVerified ?? false
        passwordHash = user.passwordHash
        salt = user.salt
        displayName = user.displayName
        photoUrl = user.photoUrl
        phoneNumber = user.phoneNumber
        disabled = user.disabled ?? false
        createdAt = user.createdAt
        lastSignedInAt = user.lastLoginAt
        customAttributes = user.customAttributes
        providerUserInfo = (user.providerUserInfo ?? []).map {
            Provider(providerId: $0.providerId, rawId: $0.rawId, email: $0.email, displayName: $0.displayName, photoUrl: $0.photoUrl)
        }
        let phoneFactors = (user.mfaInfo ?? []).compactMap { factor in
            (factor.unobfuscatedPhoneInfo ?? factor.phoneInfo).map {
                SecondFactor(mfaEnrollmentId: factor.mfaEnrollmentId, displayName: factor.displayName, phoneInfo: $0,
                             enrolledAt: factor.enrolledAt)
            }
        }
        mfaInfo = phoneFactors.isEmpty ? nil : phoneFactors
        passkeyInfo = user.passkeyInfo.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension ExportedUser {
    /// The wire form `accounts:batchCreate` takes.
    var record: UserRecord {
        var record = UserRecord(localId: localId)
        record.email = email
        record.emailVerified = emailVerified
        record.passwordHash = passwordHash
        record.salt = salt
        record.displayName = displayName
        record.photoUrl = photoUrl
        record.phoneNumber = phoneNumber
        record.disabled = disabled
        record.createdAt = createdAt
        record.lastLoginAt = lastSignedInAt
        record.customAttributes = customAttributes
        record.providerUserInfo = providerUserInfo?.map {
            ProviderUserInfo(providerId: $0.providerId, rawId: $0.rawId, email: $0.email, displayName: $0.displayName,
                             photoUrl: $0.photoUrl)
        }
        record.mfaInfo = mfaInfo?.map {
            MFAEnrollment(mfaEnrollmentId: $0.mfaEnrollmentId, displayName: $0.displayName, phoneInfo: $0.phoneInfo,
                          enrolledAt: $0.enrolledAt)
        }
        record.passkeyInfo = passkeyInfo
        return record
    }
}
