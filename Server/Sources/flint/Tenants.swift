import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// `flint tenants`: the project's tenants (Identity Platform multi-tenancy). `flint users … --tenant` then acts on one
/// tenant's users.
struct Tenants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and delete the tenants of the project (--project).",
        discussion: "Each tenant has its own users and sign-in settings; `flint users … --tenant ID` acts on its users.",
        subcommands: [List.self, Create.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tenants.")
        @OptionGroup var options: AdminOptions
        @Flag(help: "Print a JSON array instead.") var json = false

        func run() async throws {
            let tenants = try await options.withBackend(acceptsTenant: false) { backend in try await backend.tenants() }
            if json { return try Output.json(tenants) }
            func on(_ flag: Bool?) -> String { flag == true ? "on" : "off" }
            Output.table(header: ["TENANT", "DISPLAY NAME", "PASSWORD", "EMAIL LINK", "ANONYMOUS", "DISABLED"], rows: tenants.map {
                [$0.tenantId ?? "", $0.displayName ?? "", on($0.allowPasswordSignup), on($0.enableEmailLinkSignin),
                 on($0.enableAnonymousUser), $0.disableAuth == true ? "yes" : "no"]
            })
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a tenant and print its ID.",
            discussion: "As in Firebase, every sign-in method of a new tenant is off unless switched on here.")
        @OptionGroup var options: AdminOptions
        @Option(name: .customLong("display-name"), help: "Its name; its ID is made from it.") var displayName: String
        @Flag(name: .customLong("allow-password-signup"), help: "Email and password sign-in.") var password = false
        @Flag(name: .customLong("enable-email-link-signin"), help: "Email link sign-in.") var emailLink = false
        @Flag(name: .customLong("enable-anonymous"), help: "Anonymous sign-in.") var anonymous = false

        func run() async throws {
            let tenant = try await options.withBackend(acceptsTenant: false) { backend in
                try await backend.createTenant(TenantConfig(
                    displayName: displayName, allowPasswordSignup: password, enableEmailLinkSignin: emailLink,
                    enableAnonymousUser: anonymous))
            }
            print(tenant.tenantId ?? "")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a tenant and every user in it.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The tenant's ID.") var tenantID: String

        func run() async throws {
            try await options.withBackend(acceptsTenant: false) { backend in try await backend.deleteTenant(tenantID) }
            Output.note("Deleted tenant \(tenantID).")
        }
    }
}
