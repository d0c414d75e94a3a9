import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// The options of every command that changes one user.
struct UserChangeOptions: ParsableArguments {
    @OptionGroup var options: AdminOptions
    @Argument(help: "The user's uid.") var uid: String

    /// Applies the admin `accounts:update` that `change` describes to the user, then prints `done`.
    func update(_ done: String, _ change: (inout UpdateAccountRequest) -> Void) async throws {
        var request = UpdateAccountRequest(returnSecureToken: false)
        request.localId = uid
        change(&request)
        try await options.withBackend { backend in try await backend.update(request) }
        print("\(done) user \(uid)")
    }
}

extension Users {
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a user: sign-ins and token refreshes fail with USER_DISABLED.")
        @OptionGroup var user: UserChangeOptions

        func run() async throws {
            try await user.update("Disabled") { $0.disableUser = true }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user again.")
        @OptionGroup var user: UserChangeOptions

        func run() async throws {
            try await user.update("Enabled") { $0.disableUser = false }
        }
    }

    struct SetClaims: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-claims",
            abstract: "Replace a user's custom claims.",
            discussion: """
                The claims are a JSON object of at most 1000 characters, without the names ID tokens reserve \
                (iss, sub, firebase, …); '{}' removes them. New ID tokens carry them, as with the Admin SDK's \
                setCustomUserClaims.
                """)
        @OptionGroup var user: UserChangeOptions
        @Argument(help: #"The claims, e.g. '{"admin":true}'."#) var claims: String

        func run() async throws {
            try await user.update("Set the custom claims of") { $0.customAttributes = claims }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a user's refresh tokens: every session must sign in again.",
            discussion: "Sets the user's tokens-valid-since time to now, as the Admin SDK's revokeRefreshTokens does.")
        @OptionGroup var user: UserChangeOptions

        func run() async throws {
            let now = Int64(Date().timeIntervalSince1970)
            try await user.update("Revoked the refresh tokens of") { $0.validSince = LenientString(String(now)) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user for good.")
        @OptionGroup var user: UserChangeOptions

        func run() async throws {
            try await user.options.withBackend { backend in try await backend.deleteUser(user.uid) }
            print("Deleted user \(user.uid)")
        }
    }
}
