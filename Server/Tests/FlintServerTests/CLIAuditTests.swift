import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `flint audit` with the built binary: what the CLI changes is recorded as its own (`flint`, the command's words), the
/// filters combine, `--json-lines` is one event a line, and `--follow` prints what is written after it started, on the
/// database and through a server.
@Suite struct CLIAuditTests {
    /// The events of a `--json-lines` run, line by line.
    static func events(_ output: String) throws -> [AuditEvent] {
        try output.split(separator: "\n").map { try JSONDecoder().decode(AuditEvent.self, from: Data($0.utf8)) }
    }

    static func events(_ flint: FlintCLI, _ arguments: String...) async throws -> [AuditEvent] {
        try events(try await flint.succeed(arguments: ["audit", "--json-lines"] + arguments))
    }

    @Test func theCLIsChangesAreItsOwnAndFiltersCombine() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        try await flint.succeed("users", "create", "--uid", "ada", "--email", "ada@example.com", "--password", "secret-pass-1")
        try await flint.succeed("users", "disable", "ada")
        try await flint.succeed("users", "create", "--uid", "bob", "--email", "bob@example.com", "--password", "secret-pass-2")

        // The oldest first, each the CLI's, named by its command's words and none of its arguments; disabling ends
        // the user's sessions too.
        let adas = try await Self.events(flint, "--user", "ada")
        #expect(adas.map(\.type) == [.signUp, .userDisabled, .sessionsRevoked], "\(adas)")
        #expect(adas.allSatisfy { $0.principal == "flint" })
        #expect(adas.map(\.operation) == ["flint users create", "flint users disable", "flint users disable"])
        #expect(adas.allSatisfy { $0.localId == "ada" && $0.ipAddress == nil })
        #expect(try await Self.events(flint, "--user", "ada@example.com") == adas)

        // Filters: types, a limit of the newest, the address, times.
        let signUps = try await Self.events(flint, "--type", "signUp,userDeleted")
        #expect(signUps.map(\.localId) == ["ada", "bob"], "\(signUps)")
        #expect(try await Self.events(flint, "--type", "signUp", "--limit", "1").map(\.localId) == ["bob"])
        #expect(try await Self.events(flint, "--user", "ada", "--type", "userDisabled").count == 1)
        #expect(try await Self.events(flint, "--ip", "203.0.113.7").isEmpty)
        #expect(try await Self.events(flint, "--until", "2000-01-01T00:00:00Z").isEmpty)
        #expect(try await Self.events(flint, "--since", "2000-01-01T00:00:00Z", "--user", "bob").map(\.type) == [.signUp])
        #expect(try await Self.events(flint, "--since", "2999-01-01T00:00:00.000+01:00").isEmpty)

        // The table: the newest first, a row an event.
        let table = try await flint.succeed("audit", "--type", "signUp,userDisabled").split(separator: "\n")
        #expect(table.first?.hasPrefix("TIME") == true && table.count == 4, "\(table)")
        #expect(table.dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] }
                    == ["signUp", "userDisabled", "signUp"], "\(table)")
        #expect(table[1].contains("bob") && table[1].contains("flint users create") && table[1].contains("method=password"))

        // A deleted user's trail is still read by the uid; an email nobody has is not found.
        try await flint.succeed("users", "delete", "ada")
        #expect(try await Self.events(flint, "--user", "ada").map(\.type) == [.signUp, .userDisabled, .sessionsRevoked, .userDeleted])
        let nobody = try await flint.run("audit", "--user", "nobody@example.com")
        #expect(nobody.status != 0 && nobody.stderr.contains("USER_NOT_FOUND"), "\(nobody.stderr)")

        // Bad options are the parser's refusals.
        for arguments in [["--type", "nonsense"], ["--since", "yesterday"], ["--limit", "0"], ["--follow", "--until", "2030-01-01T00:00:00Z"]] {
            let refused = try await flint.run(arguments: ["audit"] + arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
        }
        #expect(try await flint.run("audit", "--type", "nonsense").stderr.contains("signInFailed"))
    }

    /// Through a server on the same data dir: its requests' events (the user's own, `owner`'s), read by `--server`;
    /// and `--follow`, on the database and through the server at once, prints what is written after it started.
    @Test func readThroughAServerAndFollowed() async throws {
        try await FlintCLI.sharingServerData { flint, scratch in
            try await withServer(emulator: true, sharing: scratch) { server, client in
                let remote = ["--server", server.baseURL.absoluteString]
                let ada = try #require(try await client.signUp(email: "ada@example.com", password: "secret-pass-1").string("localId"))
                try await flint.succeed(arguments: ["users", "disable", ada] + remote)
                let adas = try Self.events(try await flint.succeed(arguments: ["audit", "--json-lines", "--user", "ada@example.com"] + remote))
                #expect(adas.map(\.type) == [.signUp, .userDisabled, .sessionsRevoked], "\(adas)")
                #expect(adas.map(\.principal) == ["user", "owner", "owner"] && adas.allSatisfy { $0.ipAddress == "127.0.0.1" }, "\(adas)")
                #expect(try await Self.events(flint, "--user", ada) == adas)

                // Three followers: on the database from now, through the server from now, and from --since with a filter.
                let followers = try [
                    [], remote, ["--since", "2000-01-01T00:00:00Z", "--type", "signUp"] + remote,
                ].map { try Follower(flint, $0) }
                for follower in followers { await follower.waitUntilFollowing() }
                let bob = try #require(try await client.signUp(email: "bob@example.com", password: "secret-pass-2").string("localId"))
                var outputs: [[AuditEvent]] = []
                for follower in followers { outputs.append(try await follower.events(through: bob)) }
                #expect(outputs[0].map(\.localId) == [bob] && outputs[0].map(\.type) == [.signUp], "\(outputs[0])")
                #expect(outputs[1] == outputs[0])
                #expect(outputs[2].map(\.localId) == [ada, bob], "\(outputs[2])")
            }
        }
    }

    /// `flint audit --follow --json-lines` running on its own, until the test has what it waits for (at most two
    /// minutes, `timeout`'s bound).
    struct Follower {
        let process: ChildProcess
        let arguments: [String]

        init(_ flint: FlintCLI, _ arguments: [String]) throws {
            self.arguments = arguments
            process = try ChildProcess.launch(
                "/usr/bin/timeout",
                ["--kill-after=5", "120", FlintCLI.executable.path, "audit", "--follow", "--json-lines"]
                    + arguments + ["--data-dir", flint.dataDirectory.path],
                environment: ChildProcess.environment.filter { !$0.key.hasPrefix("FLINT_") })
        }

        /// Reads its standard error until it says it follows (it has then taken the newest event), or it ends.
        func waitUntilFollowing() async {
            let said = await Self.read(process.errors) { $0.contains("Following the audit trail") }
            #expect(said.contains("Following the audit trail"), "\(arguments): \(said)")
        }

        /// What it printed up to the whole line of an event about `localID`, then stops it.
        func events(through localID: String) async throws -> [AuditEvent] {
            let marker = "\"localId\":\"\(localID)\""
            let printed = await Self.read(process.output) { text in
                text.range(of: marker).map { text[$0.upperBound...].contains("\n") } ?? false
            }
            process.terminate()
            let rest = await process.finish()
            #expect(printed.contains(marker), "\(arguments): \(rest.errors)")
            return try CLIAuditTests.events(printed + rest.output)
        }

        /// Reads `handle` until what was read passes `done`, or it ends.
        private static func read(_ handle: FileHandle?, until done: @escaping @Sendable (String) -> Bool) async -> String {
            guard let handle else { return "" }
            return await BlockingWork.run {
                var read = Data()
                while !done(String(decoding: read, as: UTF8.self)) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    read += chunk
                }
                return String(decoding: read, as: UTF8.self)
            }
        }
    }
}
