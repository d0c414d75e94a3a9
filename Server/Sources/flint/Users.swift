import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// `flint users`: the accounts of the selected project (`--project`), managed as the Admin SDK would.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, inspect, create, change and export user accounts.",
        discussion: """
            The commands act on the project --project names (default demo-flint) with admin rights, and apply \
            the same checks as the Admin SDK's calls (valid emails and phone numbers, custom-claims rules).
            """,
        subcommands: [
            List.self, Get.self, Create.self, Disable.self, Enable.self, SetClaims.self, Revoke.self, Sessions.self, Delete.self,
            Export.self, Import.self,
        ])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users in uid order.")
        @OptionGroup var options: AdminOptions
        @Option(help: "The most users to list.") var limit = 100
        @Flag(help: "Print the user records as JSON (hashes and salts included).") var json = false

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be positive.") }
        }

        func run() async throws {
            let users = try await options.withBackend { backend in try await backend.records(limit: limit) }
            if json {
                try Output.json(users)
            } else {
                Output.table(header: ["UID", "EMAIL", "PHONE", "DISPLAY NAME", "STATUS", "CREATED"], rows: users.map { user in
                    [user.localId, user.email ?? "", user.phoneNumber ?? "", user.displayName ?? "", user.status,
                     Output.date(milliseconds: user.createdAt) ?? ""]
                })
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one user, found by uid, email or phone number.",
            discussion: "An argument with an @ is an email, one starting with + a phone number (E.164), anything else a uid.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The user's uid, email or phone number.") var user: String
        @Flag(help: "Print the user record as JSON (hash and salt included).") var json = false

        func run() async throws {
            let record = try await options.withBackend { backend in try await backend.record(matching: user) }
            try record.show(json: json)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user and show it.",
            discussion: "Every field is optional; without --uid the server picks one. A user with no email, phone or password can only be used through its uid.")
        @OptionGroup var options: AdminOptions
        @Option(help: "The uid (1 to 128 characters).") var uid: String?
        @Option(help: "The email address.") var email: String?
        @Option(help: "The password (at least 6 characters).") var password: String?
        @Option(name: .customLong("display-name"), help: "The display name.") var displayName: String?
        @Option(name: .customLong("photo-url"), help: "The profile photo's URL.") var photoURL: String?
        @Option(help: "The phone number, in E.164 form (+15555550100).") var phone: String?
        @Flag(name: .customLong("email-verified"), help: "Mark the email address verified.") var emailVerified = false
        @Flag(help: "Create the account disabled.") var disabled = false
        @Flag(help: "Print the created user record as JSON.") var json = false

        func run() async throws {
            let record = try await options.withBackend { backend in
                var request = SignUpRequest(email: email, password: password, displayName: displayName, returnSecureToken: nil)
                request.localId = uid
                request.photoUrl = photoURL
                request.phoneNumber = phone
                request.emailVerified = emailVerified
                request.disabled = disabled
                return try await backend.record(matching: try await backend.createUser(request))
            }
            try record.show(json: json)
        }
    }
}
