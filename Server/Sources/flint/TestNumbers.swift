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
        @OptionGroup var options: AdminOptions
        @Flag(help: "Print a JSON object of numbers to codes instead.") var json = false

        func run() async throws {
            let numbers = try await options.withBackend(acceptsTenant: false) { backend in try await backend.testNumbers() }
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
        @OptionGroup var options: AdminOptions
        @Argument(help: "The number, in E.164 form (+16505550101).") var number: String
        @Argument(help: "Its fixed 6-digit code.") var code: String

        func run() async throws {
            try await options.withBackend(acceptsTenant: false) { backend in
                var numbers = try await backend.testNumbers()
                numbers[number] = code
                try await backend.setTestNumbers(numbers)
            }
            print("Added test number \(number) with code \(code)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a fictional number.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The number, as `test-numbers list` shows it.") var number: String

        func run() async throws {
            try await options.withBackend(acceptsTenant: false) { backend in
                var numbers = try await backend.testNumbers()
                guard numbers.removeValue(forKey: number) != nil else {
                    throw FlintError(.invalidArgument, "\(number) is not a test phone number.")
                }
                try await backend.setTestNumbers(numbers)
            }
            print("Removed test number \(number)")
        }
    }
}
