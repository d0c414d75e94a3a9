@testable import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// Every limit is declared once (`Budget.all`), named by the routes it guards, shown in the OpenAPI document, and
/// listed in the abuse table of `docs/abuse-protection.md`. (Debug builds also stop when a request spends a budget its route does not
/// name: see `BudgetLedger.checkDeclared`, which every API test exercises.)
@Suite struct BudgetDeclarationTests {
    @Test func namesAreUnique() {
        #expect(Set(Budget.all.map(\.name)).count == Budget.all.count)
    }

    @Test(arguments: [true, false])
    func everyBudgetGuardsARouteAndIsDocumented(emulator: Bool) async throws {
        try await withServer(emulator: emulator) { server, _ in
            let named = Set(server.server.assembly.endpoints.flatMap(\.budgets))
            // The OpenID provider (and so its budgets) is production mode's.
            let served = emulator ? Budget.all.filter { !$0.name.hasPrefix("oauth:") } : Budget.all
            #expect(named.map(\.name).sorted() == served.map(\.name).sorted())
            let (document, _) = server.server.openAPIDocument.make()
            let sendOobCode = document.objectValue?["paths"]?.objectValue?["/v1/accounts:sendOobCode"]?.objectValue?["post"]?.objectValue
            #expect(sendOobCode?["x-flint-budgets"] == .array([.string("email:ip-hour"), .string("email:address-hour")]))
        }
    }

    @Test func abuseTableListsExactlyTheDeclaredBudgets() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/abuse-protection.md"), encoding: .utf8)
        // The page's first section, up to its next heading, holds the table.
        let section = try #require(page.components(separatedBy: "# Abuse protection").dropFirst().first?
            .components(separatedBy: "\n#").first)
        // The table's last column names the budgets of its row.
        let listed = section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| what") }
            .flatMap { row -> [String] in
                let cells = row.split(separator: "|", omittingEmptySubsequences: false)
                guard cells.count >= 3 else { return [] }
                return cells[cells.count - 2].split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            }
        #expect(listed.sorted() == Budget.all.map(\.name).sorted())
    }
}
