import ArgumentParser
import FlintServer
import FlintWire
import Foundation

extension Users {
    /// `flint users sessions <user>`: a user's sessions, one per sign-in, as the admin API's
    /// `v2/projects/{p}[/tenants/{t}]/accounts/{uid}/sessions` lists and ends them, on the database or `--server`.
    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's sessions, or end one (--end) or all of them (--end-all).",
            discussion: """
                A session is what one sign-in began: its refresh token, and the ID tokens it gets (their sid claim is \
                its session ID). Ending one signs that device out: its refresh token is refused at once. --end-all ends \
                every session listed; 'flint users revoke' also makes every token issued so far invalid.
                """)
        @OptionGroup var options: AdminOptions
        @Argument(help: "The user's uid, email or phone number.") var user: String
        @Option(name: .customLong("end"), help: ArgumentHelp("End this session (its ID, as listed).", valueName: "session-id"))
        var end: String?
        @Flag(name: .customLong("end-all"), help: "End every session of the user.") var endAll = false
        @Flag(help: "Print the sessions (or, when ending, the IDs of those ended) as JSON.") var json = false

        func validate() throws {
            if end != nil, endAll { throw ValidationError("--end and --end-all exclude each other.") }
            if end?.isEmpty == true { throw ValidationError("--end needs a session ID.") }
        }

        func run() async throws {
            let (localID, sessions, ended) = try await options.withBackend { backend in
                let localID = try await backend.record(matching: user).localId
                if let end {
                    try await backend.endSession(end, of: localID)
                    return (localID, [FlintWire.UserSession](), [end])
                }
                let sessions = try await backend.sessions(of: localID)
                guard endAll else { return (localID, sessions, [String]()) }
                var ended: [String] = []
                for session in sessions {
                    do {
                        try await backend.endSession(session.sessionId, of: localID)
                        ended.append(session.sessionId)
                    } catch let error as FlintError where error.message.hasPrefix(ServerErrorCode.sessionNotFound.rawValue) {
                        // Ended meanwhile (signed out, or expired).
                    }
                }
                return (localID, [], ended)
            }
            if end != nil || endAll {
                if json { return try Output.json(RevokeUserSessionsResponse(revokedSessionIds: ended)) }
                if ended.count == 1, end != nil {
                    print("Ended session \(ended[0]) of user \(localID)")
                } else {
                    print("Ended \(ended.count) session\(ended.count == 1 ? "" : "s") of user \(localID)")
                }
                return
            }
            if json { return try Output.json(sessions) }
            Output.table(header: ["SESSION ID", "SIGN-IN", "2ND FACTOR", "SIGNED IN", "LAST REFRESH", "ADDRESS", "USER AGENT"],
                         rows: sessions.map { session in
                [session.sessionId, session.signInProvider, session.secondFactor ?? "", session.createTime, session.lastRefreshTime,
                 session.lastRefreshIpAddress ?? session.createIpAddress ?? "",
                 Self.oneLine(session.clientId.map { "OAuth client \($0)" } ?? session.lastRefreshUserAgent ?? session.createUserAgent ?? "")]
            })
        }

        /// A user agent on one line of the table: control characters (a client sends what it likes) as spaces.
        static func oneLine(_ text: String) -> String {
            String(text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
        }
    }
}

extension LocalBackend {
    func sessions(of localID: String) async throws -> [FlintWire.UserSession] {
        try await server.sessions(localID: localID, caller: caller).sessions
    }

    func endSession(_ sessionID: String, of localID: String) async throws {
        _ = try await server.endSession(sessionID, localID: localID, caller: caller)
    }
}

/// Through FlintAdmin's calls of the sessions (`AdminAuth+Sessions.swift`).
extension RemoteBackend {
    func sessions(of localID: String) async throws -> [FlintWire.UserSession] {
        try await remote { try await auth.sessions(uid: localID) }
    }

    func endSession(_ sessionID: String, of localID: String) async throws {
        try await remote { try await auth.revokeSession(uid: localID, sessionID: sessionID) }
    }
}
