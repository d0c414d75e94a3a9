import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The users list as Firebase's console shows it: newest first, the columns Identifier, Providers, Created, Signed In and
/// User UID, a search by uid, email or phone number, and pages that continue from a key (creation time, then uid).
extension ConsoleTests {
    /// 2024-11-24T02:38:04.000Z, the oldest account of `mixedLoad`.
    static let loadStart: Int64 = 1_732_415_884_000
    static let day: Int64 = 86_400_000

    /// Five accounts a day apart, stored as an import stores them (creation and sign-in times as given): an email
    /// with a password, a phone number that never signed in, a Google account, a disabled email and an anonymous one.
    static func mixedLoad(in realm: String, _ server: TestServer) async throws {
        func account(_ uid: String, days: Int64, signedIn: Int64?, _ fill: (inout UserAccount) -> Void = { _ in }) -> UserAccount {
            var user = UserAccount(projectID: realm, localID: uid, createdAt: loadStart + days * day)
            user.lastLoginAt = signedIn.map { loadStart + $0 }
            fill(&user)
            return user
        }
        try await server.server.store.accounts.replaceUsers([
            account("uid-email", days: 0, signedIn: 2 * day + 3_600_000) {
                $0.email = "ada@example.com"
                $0.passwordHash = "aGFzaA=="
                $0.passwordSalt = "c2FsdA=="
            },
            account("uid-phone", days: 1, signedIn: nil) { $0.phoneNumber = "+16505550101" },
            account("uid-google", days: 2, signedIn: 2 * day) {
                $0.identities = [FederatedIdentity(providerID: "google.com", rawID: "g-1", email: "grace@example.com")]
            },
            account("uid-disabled", days: 3, signedIn: 3 * day) {
                $0.email = "off@example.com"
                $0.passwordHash = "aGFzaA=="
                $0.disabled = true
            },
            account("uid-anonymous", days: 4, signedIn: 4 * day),
        ])
    }

    /// What `mixedLoad` shows, newest first: each row's cells as text.
    static let mixedLoadRows = [
        ["(anonymous)", "anonymous", "Nov 28, 2024", "Nov 28, 2024", "uid-anonymous"],
        ["off@example.com disabled", "password", "Nov 27, 2024", "Nov 27, 2024", "uid-disabled"],
        ["grace@example.com", "google.com", "Nov 26, 2024", "Nov 26, 2024", "uid-google"],
        ["+16505550101", "phone", "Nov 25, 2024", "", "uid-phone"],
        ["ada@example.com", "password", "Nov 24, 2024", "Nov 26, 2024", "uid-email"],
    ]

    /// The users table of `page`: its header, and each row's cells as text (tags dropped).
    static func usersTable(_ page: ConsoleClient.Page) -> (header: [String], rows: [[String]]) {
        func matches(_ pattern: String, in text: String) -> [String] {
            let expression = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
            return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
        func text(_ html: String) -> String {
            html.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression).trimmingCharacters(in: .whitespaces)
        }
        let table = matches(#"<table id="users">(.*?)</table>"#, in: page.body).first ?? ""
        let header = matches("<th>(.*?)</th>", in: table).map(text)
        let rows = matches("<tr data-uid=[^>]*>(.*?)</tr>", in: table).map { matches("<td>(.*?)</td>", in: $0).map(text) }
        return (header, rows)
    }

    static func uids(_ page: ConsoleClient.Page) -> [String] { usersTable(page).rows.map { $0.last ?? "" } }

    /// The link with this id, as a path to get.
    static func link(_ id: String, in page: ConsoleClient.Page) -> String? {
        ConsoleClient.Page.capture(#"id="\#(id)" href="([^"]*)""#, in: page.body)?.replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test(arguments: TestDatabase.allCases)
    func usersAreListedNewestFirstWithFirebasesColumns(database: TestDatabase) async throws {
        try await withConsole(emulator: true, database: database) { server, console in
            try await Self.mixedLoad(in: server.projectID, server)
            // Signed up now, long after the load: the newest.
            let anonymous = try #require(try await TestClient(server).signUp().string("localId"))
            try await console.signIn()

            let page = try await console.get("/console/users")
            let (header, rows) = Self.usersTable(page)
            #expect(header == ["Identifier", "Providers", "Created", "Signed In", "User UID"])
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "MMM d, yyyy"
            let today = formatter.string(from: server.clock.now())
            #expect(rows.first == ["(anonymous)", "anonymous", today, today, anonymous])
            #expect(Array(rows.dropFirst()) == Self.mixedLoadRows)
            // A date's whole time is its `datetime` and its tooltip.
            #expect(page.body.contains(#"<time datetime="2024-11-26T03:38:04.000Z" title="2024-11-26T03:38:04.000Z">Nov 26, 2024</time>"#))
            #expect(page.body.contains(#"<tr data-uid="uid-disabled" class="disabled">"#))
            #expect(Self.link("next-page", in: page) == nil && Self.link("prev-page", in: page) == nil)
            #expect(page.text(of: "list-status") == "Newest first.")

            // The user's page keeps its details.
            let detail = try await console.get("/console/users/uid-email")
            #expect(detail.text(of: "user-last-sign-in") == "2024-11-26T03:38:04.000Z" && detail.text(of: "user-status") == "Enabled")
            #expect(try await console.get("/console/users/uid-disabled").text(of: "user-status") == "Disabled")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func theSearchFindsAUserByEmailPhoneNumberOrUID(database: TestDatabase) async throws {
        try await withConsole(emulator: true, database: database) { server, console in
            try await Self.mixedLoad(in: server.projectID, server)
            try await console.signIn()
            func found(_ search: String) async throws -> [String] {
                Self.uids(try await console.get("/console/users?q=" + FormURLEncoding.escape(search)))
            }
            #expect(try await found("ADA@example.com") == ["uid-email"])
            #expect(try await found("+16505550101") == ["uid-phone"])
            #expect(try await found("uid-google") == ["uid-google"])
            #expect(try await found(" off@example.com ") == ["uid-disabled"])
            // A prefix of an email, a number or a uid finds every user it starts, newest first.
            #expect(try await found("ada@") == ["uid-email"])
            #expect(try await found("+1650") == ["uid-phone"])
            #expect(try await found("uid-") == Self.mixedLoadRows.map { $0[4] })
            // The address a linked provider account has, which the list shows for an account without its own.
            #expect(try await found("Grace@example.com") == ["uid-google"])
            let none = try await console.get("/console/users?q=nobody%40example.com")
            #expect(Self.uids(none) == [] && none.text(of: "list-status")?.hasPrefix("No user") == true)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func usersArePagedFromAKeyWithTiesBrokenByUID(database: TestDatabase) async throws {
        try await withConsole(emulator: true, database: database) { server, console in
            // u-00 … u-44 a second apart, u-00 the newest; u-45 … u-54 all created in one millisecond, before them.
            let uids = (0..<55).map { String(format: "u-%02d", $0) }
            let users: [JSONValue] = uids.enumerated().map { index, uid in
                ["localId": .string(uid), "createdAt": .string(String(Self.loadStart - Int64(min(index, 45)) * 1000))]
            }
            #expect(try await TestClient(server).admin("/v1/projects/\(server.projectID)/accounts:batchCreate",
                                                       ["users": .array(users)]).status == 200)
            try await console.signIn()
            let newestFirst = Array(uids[0..<45]) + uids[45...].reversed()
            let pages = [Array(newestFirst[0..<25]), Array(newestFirst[25..<50]), Array(newestFirst[50...])]
            // The second page ends inside the tie, at u-50: the third starts at u-49, same time, next uid down.
            #expect(pages[1].suffix(2) == ["u-51", "u-50"] && pages[2].first == "u-49")

            let first = try await console.get("/console/users")
            #expect(Self.uids(first) == pages[0] && Self.link("prev-page", in: first) == nil)
            let nextLink = try #require(Self.link("next-page", in: first))
            #expect(nextLink == "/console/users?after=\(Self.loadStart - 24_000).u-24")
            let second = try await console.get(nextLink)
            #expect(Self.uids(second) == pages[1])
            let third = try await console.get(try #require(Self.link("next-page", in: second)))
            #expect(Self.uids(third) == pages[2] && Self.link("next-page", in: third) == nil)
            #expect(Self.link("prev-page", in: third) == "/console/users?before=\(Self.loadStart - 45_000).u-49")

            // Back: the page before the third is the second again, and the one before that the first (no link back).
            let secondAgain = try await console.get(try #require(Self.link("prev-page", in: third)))
            #expect(Self.uids(secondAgain) == pages[1])
            #expect(Self.link("next-page", in: secondAgain) == "/console/users?after=\(Self.loadStart - 45_000).u-50")
            let firstAgain = try await console.get(try #require(Self.link("prev-page", in: secondAgain)))
            #expect(Self.uids(firstAgain) == pages[0] && Self.link("prev-page", in: firstAgain) == nil)

            // A key that is not one shows the first page.
            #expect(Self.uids(try await console.get("/console/users?after=yesterday")) == pages[0])
        }
    }

    @Test func aTenantsUsersAreListedSearchedAndPagedTheSameWay() async throws {
        try await withConsole(emulator: true) { server, console in
            let tenant = Realm(projectID: server.projectID, tenantID: "acme-abcde")
            #expect(try await server.server.projects.createTenant(tenant) { _ in } != nil)
            try await Self.mixedLoad(in: tenant.key, server)
            // The project's own users, newer than the tenant's, are not in its list.
            let projectUser = try #require(try await TestClient(server).signUp(email: "project@example.com", password: "secret-pass")
                .string("localId"))
            try await console.signIn()
            let token = try #require(try await console.get("/console/tenants").csrfToken)
            #expect(try await console.post("/console/tenants/open", [("csrf", token), ("tenant", "acme-abcde")]).status == 303)

            let page = try await console.get("/console/users")
            #expect(page.text(of: "tenant-id") == "acme-abcde")
            #expect(Self.usersTable(page).rows == Self.mixedLoadRows)
            #expect(Self.uids(try await console.get("/console/users?q=%2B16505550101")) == ["uid-phone"])
            #expect(Self.uids(try await console.get("/console/users?q=project%40example.com")) == [])
            #expect(try await console.get("/console/users/\(projectUser)").status == 404)

            // A page and a bit: the next page holds the tenant's oldest user.
            let more: [JSONValue] = (0..<21).map { index in
                ["localId": .string(String(format: "more-%02d", index)), "createdAt": .string(String(Self.loadStart + 10 * Self.day))]
            }
            #expect(try await TestClient(server).admin("/v1/projects/\(server.projectID)/tenants/acme-abcde/accounts:batchCreate",
                                                       ["users": .array(more)]).status == 200)
            let full = try await console.get("/console/users")
            #expect(Self.uids(full).count == 25 && Self.uids(full).first == "more-20" && Self.uids(full).last == "uid-phone")
            let rest = try await console.get(try #require(Self.link("next-page", in: full)))
            #expect(Self.uids(rest) == ["uid-email"] && rest.text(of: "tenant-id") == "acme-abcde")
        }
    }
}
