import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Debian's headless Chromium, driven over the DevTools protocol by Tests/python/action_page_browser.py,
/// resets a password through the hosted page with a real emailed code; the new password then signs in.
@Suite struct ActionPageBrowserTests {
    /// Runs the reset-page driver on `page` with these submissions.
    private static func drive(page: String, submissions: [JSONValue], chromium: String) async throws -> [String: JSONValue] {
        try await BrowserDriver.run("action_page_browser.py", chromium: chromium, environment: [
            "FLINT_PAGE_URL": page,
            "FLINT_SUBMISSIONS": String(decoding: try JSONEncoder().encode(submissions), as: UTF8.self),
        ])
    }

    @Test func chromiumResetsThePasswordThroughTheHostedPage() async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        try await withServer { server, client in
            let email = "reset-me@example.com"
            _ = try await client.signUp(email: email, password: "old-password-1")
            let sent = try await client.post("/v1/accounts:sendOobCode", [
                "requestType": .string("PASSWORD_RESET"), "email": .string(email),
            ])
            #expect(sent.status == 200, "\(sent.body)")
            let codes = try await client.send("GET", "/emulator/v1/projects/\(server.projectID)/oobCodes")
            let entry = try #require(codes["oobCodes"]?.arrayValue?.last { item in
                item.objectValue?["email"]?.stringValue == email
                    && item.objectValue?["requestType"]?.stringValue == "PASSWORD_RESET"
            }?.objectValue, "no PASSWORD_RESET code in \(codes.body)")
            let code = try #require(entry["oobCode"]?.stringValue)

            let page = server.baseURL.absoluteString + ActionPageTests.actionPath(
                mode: "resetPassword", oobCode: code, apiKey: server.apiKey, continueURL: "http://localhost:3000/signed-out",
                lang: "en")
            let run = try await Self.drive(page: page, submissions: [
                .array([.string("new-password-2"), .string("something-else")]),  // refused in the page: the two differ
                .array([.string("abc"), .string("abc")]),  // refused by the server: WEAK_PASSWORD
                .array([.string("new-password-2"), .string("new-password-2")]),
            ], chromium: chromium)
            let log = (run["log"]?.arrayValue ?? []).compactMap { $0.stringValue }

            let initial = try #require(run["initial"]?.objectValue)
            #expect(initial["formVisible"] == .bool(true), "the form did not appear: \(initial); log: \(log)")
            #expect(initial["state"]?.stringValue == "form")
            #expect(initial["status"]?.stringValue == "Choose a new password for \(email).")
            #expect(initial["lang"]?.stringValue == "en" && initial["title"]?.stringValue == "Reset your password")

            let submissions = (run["submissions"]?.arrayValue ?? []).compactMap { $0.objectValue }
            try #require(submissions.count == 3, "submissions: \(submissions); log: \(log)")
            #expect(submissions[0]["error"]?.stringValue == "The two passwords do not match.")
            #expect(submissions[0]["formVisible"] == .bool(true))
            #expect(submissions[1]["error"]?.stringValue == "This password is too weak. Please use at least 6 characters.",
                    "\(submissions[1]); log: \(log)")
            #expect(submissions[1]["formVisible"] == .bool(true))
            let done = submissions[2]
            #expect(done["formVisible"] == .bool(false) && done["state"]?.stringValue == "done")
            #expect(done["error"] == .null, "\(done)")
            #expect(done["status"]?.stringValue == "Your password has been changed. You can now sign in with your new password.")
            #expect(done["continueVisible"] == .bool(true))
            #expect(done["continueHref"]?.stringValue == "http://localhost:3000/signed-out")
            #expect(!log.contains { $0.contains("Content Security Policy") || $0.hasPrefix("exception") }, "\(log)")

            // The new password signs in; the old one no longer does.
            let signedIn = try await client.post("/v1/accounts:signInWithPassword", [
                "email": .string(email), "password": .string("new-password-2"), "returnSecureToken": .bool(true),
            ])
            #expect(signedIn.status == 200, "\(signedIn.body)")
            #expect(signedIn.string("idToken") != nil)
            let old = try await client.post("/v1/accounts:signInWithPassword", [
                "email": .string(email), "password": .string("old-password-1"), "returnSecureToken": .bool(true),
            ])
            #expect(old.status == 400)

            // The used link now says so, in the link's language.
            let again = try await Self.drive(page: server.baseURL.absoluteString + ActionPageTests.actionPath(
                mode: "resetPassword", oobCode: code, apiKey: server.apiKey, lang: "fr"), submissions: [], chromium: chromium)
            let reused = try #require(again["initial"]?.objectValue)
            #expect(reused["formVisible"] == .bool(false) && reused["state"]?.stringValue == "error")
            #expect(reused["error"]?.stringValue == "Ce lien n’est pas valide ou a déjà été utilisé. Demandez-en un nouveau.",
                    "\(reused)")
        }
    }

    /// The newest code of a kind for an address, from the emulator's list.
    private static func code(_ client: TestClient, _ server: TestServer, email: String, type: String) async throws -> String {
        let codes = try await client.send("GET", "/emulator/v1/projects/\(server.projectID)/oobCodes")
        let entry = try #require(codes["oobCodes"]?.arrayValue?.last { item in
            item.objectValue?["email"]?.stringValue == email && item.objectValue?["requestType"]?.stringValue == type
        }?.objectValue, "no \(type) code for \(email) in \(codes.body)")
        return try #require(entry["oobCode"]?.stringValue)
    }

    @Test func chromiumVerifiesChangesAndRecoversTheEmail() async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        try await withServer { server, client in
            let email = "first@example.com"
            let idToken = try #require(try await client.signUp(email: email, password: "password-1").string("idToken"))
            func page(_ mode: String, _ code: String, lang: String = "en") -> String {
                server.baseURL.absoluteString + ActionPageTests.actionPath(mode: mode, oobCode: code, apiKey: server.apiKey, lang: lang)
            }

            // Verify the address.
            let verify = try await client.post("/v1/accounts:sendOobCode", [
                "requestType": .string("VERIFY_EMAIL"), "idToken": .string(idToken),
            ])
            #expect(verify.status == 200, "\(verify.body)")
            let verified = try #require(try await Self.drive(
                page: page("verifyEmail", try await Self.code(client, server, email: email, type: "VERIFY_EMAIL"), lang: "de"),
                submissions: [], chromium: chromium)["initial"]?.objectValue)
            #expect(verified["state"]?.stringValue == "done", "\(verified)")
            #expect(verified["status"]?.stringValue
                == "Ihre E-Mail-Adresse wurde bestätigt. Sie können sich jetzt mit Ihrem neuen Konto anmelden.")
            let lookup = try await client.lookup(idToken: idToken)
            #expect(lookup["users"]?.arrayValue?.first?.objectValue?["emailVerified"] == .bool(true), "\(lookup.body)")

            // Change it to a new address.
            let newEmail = "second@example.com"
            let change = try await client.post("/v1/accounts:sendOobCode", [
                "requestType": .string("VERIFY_AND_CHANGE_EMAIL"), "idToken": .string(idToken), "newEmail": .string(newEmail),
            ])
            #expect(change.status == 200, "\(change.body)")
            let changeCode = try await Self.code(client, server, email: email, type: "VERIFY_AND_CHANGE_EMAIL")
            let changed = try #require(try await Self.drive(
                page: page("verifyAndChangeEmail", changeCode), submissions: [], chromium: chromium)["initial"]?.objectValue)
            #expect(changed["state"]?.stringValue == "done", "\(changed)")
            #expect(changed["status"]?.stringValue == "Your sign-in email address has been changed to \(newEmail).")

            // The old address undoes the change, then asks for a password reset.
            let recoverCode = try await Self.code(client, server, email: email, type: "RECOVER_EMAIL")
            let recovery = try await Self.drive(page: page("recoverEmail", recoverCode, lang: "fr"),
                                                submissions: [.string("send-reset")], chromium: chromium)
            let recovered = try #require(recovery["initial"]?.objectValue)
            #expect(recovered["state"]?.stringValue == "done", "\(recovery)")
            #expect(recovered["status"]?.stringValue?.hasPrefix("Votre adresse e-mail de connexion est redevenue \(email).") == true)
            let sent = try #require(recovery["submissions"]?.arrayValue?.first?.objectValue, "\(recovery)")
            #expect(sent["status"]?.stringValue == "Un e-mail de réinitialisation du mot de passe a été envoyé à \(email).", "\(sent)")
            _ = try await Self.code(client, server, email: email, type: "PASSWORD_RESET")
            let signIn = try await client.post("/v1/accounts:signInWithPassword", [
                "email": .string(email), "password": .string("password-1"), "returnSecureToken": .bool(true),
            ])
            #expect(signIn.status == 200, "\(signIn.body)")

            // A used code reads as such.
            let reused = try #require(try await Self.drive(
                page: page("verifyAndChangeEmail", changeCode), submissions: [], chromium: chromium)["initial"]?.objectValue)
            #expect(reused["state"]?.stringValue == "error")
            #expect(reused["error"]?.stringValue == "This link is invalid or has already been used. Please ask for a new one.")
        }
    }
}
