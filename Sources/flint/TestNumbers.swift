import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// `flint test-numbers`: the project's fictional phone numbers, which sign in with a fixed code and get no SMS.
struct TestNumbers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-numbers",
        abstract: "Manage the fictional phone numbers of the project (--project).",
        discussion: """
            A fictional number signs in with its fixed 6-digit code; no SMS is sent. A project has at most \
            10 (FLINT_MAX_TEST_PHONE_NUMBERS), and a number a real user holds cannot become one.
            """,
        subcommands: [List.self, Add.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the fictional numbers and their codes.")
        @OptionGroup var options: ServerOptions
        @Flag(help: "Print a JSON object of numbers to codes instead.") var json = false

        func run() async throws {
            let numbers = try await options.withServer { server in try await server.testNumbers() }
            if json {
                try Output.json(numbers)
            } else {
                Output.table(header: ["NUMBER", "CODE"], rows: numbers.sorted { $0.key < $1.key }.map { [$0.key, $0.value] })
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a fictional number, or change the code of one.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The number, in E.164 form (+16505550101).") var number: String
        @Argument(help: "Its fixed 6-digit code.") var code: String

        func run() async throws {
            try await options.withServer { server in
                var numbers = try await server.testNumbers()
                numbers[number] = code
                try await server.setTestNumbers(numbers)
            }
            print("Added test number \(number) with code \(code)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a fictional number.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The number, as `test-numbers list` shows it.") var number: String

        func run() async throws {
            try await options.withServer { server in
                var numbers = try await server.testNumbers()
                guard numbers.removeValue(forKey: number) != nil else {
                    throw FlintError(.invalidArgument, "\(number) is not a test phone number.")
                }
                try await server.setTestNumbers(numbers)
            }
            print("Removed test number \(number)")
        }
    }
}

extension AuthServer {
    /// The fictional numbers of the selected project (`--project`), mapped to their codes.
    fileprivate func testNumbers() async throws -> [String: String] {
        let projectID = configuration.projectID
        guard let config = try await projectConfig(projectID) else { throw FlintError(.projectNotFound, projectID) }
        return config.signIn?.phoneNumber?.testPhoneNumbers ?? [:]
    }

    /// Replaces the project's fictional numbers through the v2 config, which checks them.
    fileprivate func setTestNumbers(_ numbers: [String: String]) async throws {
        let change = ProjectConfig(signIn: .init(phoneNumber: .init(testPhoneNumbers: numbers)))
        _ = try await updateProjectConfig(configuration.projectID, change, updateMask: "signIn.phoneNumber.testPhoneNumbers")
    }
}
