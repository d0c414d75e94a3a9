import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// README.md and every `docs/*.md` page say only what a test runs or compiles. Every fenced block is one of:
/// - ```swift: appears, whitespace aside, in a Swift file a build compiles (the snippets live in
///   `Tests/FlintAuthCompatibilityTests/DocsSnippets.swift` and `Server/Tests/FlintAdminTests/DocsSnippets.swift`),
///   in a file that imports what the snippet imports;
/// - ```sh: each command is a `flint …` line (run with its arguments by the built binary in a scratch folder, where
///   it must get past the argument parser), a `curl` line (run in order against a live in-process server, its answer
///   a JSON object without an error and with what the `# → …` line under it shows), a variable the tour sets, or a
///   script of this repository;
/// - ```python: run against the same live server, after the page's earlier blocks;
/// - ```text: output or illustration, not checked.
/// The prose's `FLINT_*` variables, camel-case names (config keys, wire fields, API names) and `--flags` exist in
/// the sources and the CLI, and its links to pages and headings resolve.
@Suite struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    // MARK: The pages and their blocks

    struct Page: Sendable, CustomStringConvertible {
        var name: String
        var text: String
        var description: String { name }
    }

    struct Block: Sendable, CustomStringConvertible {
        var page: String
        var line: Int
        var language: String
        var text: String
        var description: String { "\(page):\(line) (```\(language))" }
    }

    static let pages: [Page] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        let names = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        return names.compactMap { name in
            (try? String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)).map { Page(name: name, text: $0) }
        }
    }()

    static func blocks(of page: Page) -> [Block] {
        var blocks: [Block] = []
        var open: (line: Int, language: String, lines: [String])?
        for (index, line) in page.text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if let current = open {
                    blocks.append(Block(page: page.name, line: current.line, language: current.language,
                                        text: current.lines.joined(separator: "\n")))
                    open = nil
                } else {
                    open = (index + 1, String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
                }
            } else if open != nil {
                open?.lines.append(line)
            }
        }
        return blocks
    }

    static var allBlocks: [Block] { pages.flatMap(blocks(of:)) }

    /// The prose: the page without its fenced blocks.
    static func prose(of page: Page) -> String {
        var inside = false
        return page.text.components(separatedBy: "\n").filter { line in
            if line.hasPrefix("```") { inside.toggle(); return false }
            return !inside
        }.joined(separator: "\n")
    }

    /// The inline code spans of the prose.
    static func codeSpans(of page: Page) -> [String] {
        prose(of: page).components(separatedBy: "\n").flatMap { line in
            line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
    }

    @Test func pagesAreThere() {
        #expect(Self.pages.count >= 18, "\(Self.pages.map(\.name))")
        #expect(Self.pages.first?.name == "README.md")
    }

    /// A newcomer's first screen: the two set-up commands, then a short page.
    @Test func readmeStartsWithTheTwoCommandsAndStaysShort() throws {
        let readme = try #require(Self.pages.first)
        #expect(readme.text.hasPrefix("""
            # Flint

            ```sh
            swift run --package-path Server flint serve   # the identity server on http://127.0.0.1:9099, data in ./.flint (embedded SQLite)
            scripts/test.sh                               # every test: installs PostgreSQL, chromium, Apache and the Python packages if missing, starts PostgreSQL on 127.0.0.1
            ```

            """))
        let lines = readme.text.components(separatedBy: "\n").count
        #expect(lines <= 250, "README.md has \(lines) lines")
    }

    @Test(arguments: allBlocks)
    func everyBlockIsOfACheckedKind(_ block: Block) {
        #expect(["sh", "swift", "python", "text"].contains(block.language),
                "\(block): mark output and illustrations ```text; other blocks are sh, swift or python")
    }

    // MARK: Swift: compiled

    /// Every Swift file a build compiles: the root package's sources and tests (snippets included), the server
    /// package's, and the examples.
    static let compiledSwift: [(path: String, imports: Set<String>, text: String)] = {
        let folders = ["Sources", "Tests", "Server/Sources", "Server/Tests", "Examples/AdminServer/Sources", "Examples/ClientApp/Sources",
                       "Examples/MCPServer/Sources", "Integrations/FlintAdminHummingbird/Sources"]
        var files: [(path: String, imports: Set<String>, text: String)] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".swift") && !path.contains(".build/") {
                guard let text = try? String(contentsOf: base.appendingPathComponent(path), encoding: .utf8) else { continue }
                files.append((path: "\(folder)/\(path)", imports: imports(of: text), text: normalized(text)))
            }
        }
        return files
    }()

    static func imports(of text: String) -> Set<String> {
        Set(text.components(separatedBy: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.first == "import" || (words.first?.hasPrefix("@") == true && words.dropFirst().first == "import") else { return nil }
            return words.drop { $0 != "import" }.dropFirst().first.map(String.init)
        })
    }

    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test(arguments: allBlocks.filter { $0.language == "swift" })
    func swiftBlockIsCompiled(_ block: Block) {
        let imports = Self.imports(of: block.text)
        let body = Self.normalized(block.text.components(separatedBy: "\n")
            .filter { !$0.hasPrefix("import ") }.joined(separator: "\n"))
        let files = Self.compiledSwift.filter { $0.text.contains(body) && imports.isSubset(of: $0.imports) }
        #expect(!files.isEmpty, "\(block) appears in no compiled Swift file that imports \(imports.sorted()): add it to Tests/FlintAuthCompatibilityTests/DocsSnippets.swift")
    }

    // MARK: sh: each command is run or checked

    enum Command: Equatable {
        /// `flint …` or `swift run --package-path Server flint …`: the arguments after `flint`.
        case flint(String)
        /// A curl call, with the JSON the `# → …` line under it shows.
        case curl(String, shown: String?)
        /// `NAME=value`, a variable later commands use.
        case assignment(name: String, value: String)
        /// A script of this repository, e.g. `scripts/test.sh`.
        case script(String)
        case unchecked(String)
    }

    /// The commands of a ```sh block: continuation lines joined, comments and `$ ` prompts dropped.
    static func commands(of block: Block) -> [Command] {
        var commands: [Command] = []
        var pending = ""
        for rawLine in block.text.components(separatedBy: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") {
                if line.hasPrefix("# →"), case .curl(let command, nil)? = commands.last {
                    commands[commands.count - 1] = .curl(command, shown: String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces))
                }
                continue
            }
            if line.isEmpty { continue }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()) + " "
                continue
            }
            commands.append(classify(pending + line))
            pending = ""
        }
        return commands
    }

    static func classify(_ text: String) -> Command {
        var line = text.hasPrefix("$ ") ? String(text.dropFirst(2)) : text
        line = stripComment(line)
        let swiftRun = "swift run --package-path Server flint"
        if line == "flint" || line.hasPrefix("flint ") { return .flint(String(line.dropFirst("flint".count))) }
        if line == swiftRun || line.hasPrefix(swiftRun + " ") { return .flint(String(line.dropFirst(swiftRun.count))) }
        if line.hasPrefix("curl ") { return .curl(line, shown: nil) }
        if let equals = line.firstIndex(of: "="), !line.contains(" "),
           line[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber }) {
            return .assignment(name: String(line[..<equals]), value: String(line[line.index(after: equals)...]))
        }
        if let program = line.split(separator: " ").first, FileManager.default.isExecutableFile(
            atPath: root.appendingPathComponent(String(program)).path), program.contains("/") {
            return .script(line)
        }
        return .unchecked(line)
    }

    /// The line without a trailing `# comment` (outside quotes).
    static func stripComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#" && previous.isWhitespace {
                return String(line.prefix(offset)).trimmingCharacters(in: .whitespaces)
            }
            previous = character
        }
        return line.trimmingCharacters(in: .whitespaces)
    }

    @Test(arguments: allBlocks.filter { $0.language == "sh" })
    func shBlockHasOnlyCheckedCommands(_ block: Block) {
        let commands = Self.commands(of: block)
        #expect(!commands.isEmpty, "\(block) has no command")
        for case .unchecked(let line) in commands {
            Issue.record("\(block): `\(line)` is neither a flint command, a curl call of the tour, a variable nor a script of this repository")
        }
        let runsLive = commands.contains { if case .curl = $0 { true } else { false } }
        for case .assignment(let name, let value) in commands where value.contains("…") {
            let filled = Self.tourValueNames.contains(name) && runsLive
            #expect(filled, "\(block): \(name)=\(value) is a placeholder no tour fills in")
        }
    }

    /// The built `flint`, as `CLITests` runs it.
    static let flint = FlintCLI.executable

    /// What ArgumentParser says when it cannot parse a command line (it then exits 64, EX_USAGE).
    static let parseErrors = ["Unknown option", "Unexpected argument", "Missing expected argument", "Missing value for",
                              "is invalid for", "Unknown subcommand", "had already been set", "Error: "]

    /// Runs every `flint …` line of the docs with the built binary, in a scratch folder of its own (its data folder,
    /// port 0, no management listener, no FLINT_* variables of the test's own), as a shell would run it. `serve` gets
    /// SIGINT after a few seconds. The line passes if the argument parser took it: no exit status 64.
    @Test(arguments: allBlocks.filter { $0.language == "sh" })
    func flintCommandsParse(_ block: Block) async throws {
        let lines = Self.commands(of: block).compactMap { command -> String? in
            if case .flint(let arguments) = command { return arguments } else { return nil }
        }
        guard !lines.isEmpty else { return }
        #expect(FileManager.default.isExecutableFile(atPath: Self.flint.path), "\(Self.flint.path): build with --build-tests")
        try await withThrowingTaskGroup(of: (String, Int32, String).self) { group in
            for arguments in lines {
                group.addTask {
                    let run = try await Self.runFlint(arguments)
                    return (arguments, run.status, run.errors)
                }
            }
            for try await (arguments, status, errors) in group {
                #expect(status != 64, "\(block): `flint\(arguments)` is refused by flint's argument parser:\n\(errors)")
            }
        }
    }

    static func runFlint(_ arguments: String, seconds: Int = 6) async throws -> (status: Int32, errors: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("flint-docs-\(UUID().uuidString)")
        let bin = scratch.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("flint"), withDestinationURL: flint)
        var environment = ChildProcess.environment.filter { !$0.key.hasPrefix("FLINT_") }
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["HOME"] = scratch.path
        environment["FLINT_DATA_DIR"] = scratch.appendingPathComponent("data").path
        environment["FLINT_PORT"] = "0"
        environment["FLINT_MANAGEMENT_PORT"] = "0"
        // Running servers are not the point: a `serve` that parses is stopped (SIGINT, a graceful stop) after a while.
        let script = "cd '\(scratch.path)' && exec timeout -s INT -k 10 \(seconds) flint\(arguments)"
        let process = try ChildProcess.launch("/bin/sh", ["-c", script], environment: environment)
        let result = await process.finish()
        return (result.status, result.errors + result.output)
    }

    // MARK: The tour: curl and Python against a live server

    /// The placeholders a tour's `NAME=…` lines stand for: the API key of the banner, or a field of an earlier answer
    /// (`ID_TOKEN` is the last answer's `idToken`).
    static let tourValueNames: Set<String> = ["KEY", "ID_TOKEN", "REFRESH_TOKEN", "LOCAL_ID"]

    static func camelCase(_ name: String) -> String {
        let parts = name.lowercased().split(separator: "_")
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { text, character in
            text += character.isUppercase ? "_" + character.lowercased() : String(character)
        }
    }

    /// The pages with curl calls: their sh and python blocks run in order against one production server, as the
    /// page's reader runs them against `flint serve`.
    static var tourPages: [Page] {
        pages.filter { page in blocks(of: page).contains { block in
            block.language == "sh" && commands(of: block).contains { if case .curl = $0 { true } else { false } }
        } }
    }

    @Test func theReadmeHasATour() {
        #expect(Self.tourPages.map(\.name).contains("README.md"))
    }

    @Test(arguments: tourPages)
    func tourRunsAgainstALiveServer(_ page: Page) async throws {
        try await withServer(emulator: false) { server, _ in
            let documented = "http://127.0.0.1:9099"
            let live = server.baseURL.absoluteString
            var variables = ["KEY": server.apiKey]
            var answers: [String: String] = [:]
            for block in Self.blocks(of: page) where block.language == "sh" || block.language == "python" {
                if block.language == "python" {
                    let prelude = answers.sorted { $0.key < $1.key }
                        .map { "\(Self.snakeCase($0.key)) = \"\($0.value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"" }.joined(separator: "\n")
                    let code = prelude + "\n" + block.text.replacingOccurrences(of: documented, with: live)
                    let process = try ChildProcess.launch("python3", ["-c", code], errors: .standardOutput)
                    let result = await process.finish()
                    #expect(result.status == 0, "\(block) failed against the live server:\n\(result.output)")
                    continue
                }
                for command in Self.commands(of: block) {
                    switch command {
                    case .assignment(let name, let value):
                        if value.contains("…") {
                            let field = Self.camelCase(name)
                            let known = name == "KEY" ? server.apiKey : answers[field]
                            guard let known else {
                                Issue.record("\(block): \(name)=\(value) stands for `\(field)`, which no earlier answer holds")
                                return
                            }
                            variables[name] = known
                        } else {
                            variables[name] = value
                        }
                    case .curl(let line, let shown):
                        let process = try ChildProcess.launch(
                            "/bin/sh", ["-c", line.replacingOccurrences(of: documented, with: live)],
                            environment: ChildProcess.environment.merging(variables) { $1 })
                        let result = await process.finish()
                        let answer = try? JSONDecoder().decode(JSONValue.self, from: Data(result.output.utf8)).objectValue
                        guard result.status == 0, let answer else {
                            Issue.record("\(block): `\(line)` answered no JSON object (status \(result.status)): \(result.output)\(result.errors)")
                            return
                        }
                        #expect(answer["error"] == nil, "\(block): `\(line)` failed: \(result.output)")
                        for (key, value) in answer {
                            if let text = value.stringValue { answers[Self.camelCase(Self.snakeCase(key))] = text }
                        }
                        if let shown { Self.checkShown(shown, in: answer, block: block, line: line) }
                    default:
                        break
                    }
                }
            }
        }
    }

    /// Every `"key":` the `# → …` line shows is in the answer, and a shown string without `…` is the answer's.
    static func checkShown(_ shown: String, in answer: [String: JSONValue], block: Block, line: String) {
        let pattern = try! NSRegularExpression(pattern: #""([A-Za-z_]+)":("([^"]*)")?"#)
        let range = NSRange(shown.startIndex..., in: shown)
        var found = false
        for match in pattern.matches(in: shown, options: [], range: range) {
            guard let keyRange = Range(match.range(at: 1), in: shown) else { continue }
            let key = String(shown[keyRange])
            let text = Range(match.range(at: 3), in: shown).map { String(shown[$0]) }
            // `"users":[{"localId":…` : a key inside a list of objects is looked for in its first element.
            let value = answer[key] ?? answer.values.lazy.compactMap { $0.arrayValue?.first?.objectValue?[key] }.first
            found = true
            #expect(value != nil, "\(block): `\(line)` answered without `\(key)`, which the page shows")
            if let text, !text.contains("…"), let value {
                #expect(value.stringValue == text, "\(block): `\(line)` answered \(key) = \(value), the page shows \"\(text)\"")
            }
        }
        #expect(found, "\(block): the answer shown under `\(line)` names no field")
    }

    // MARK: Names in the prose

    /// The source trees names are looked up in.
    static func sourceText(_ folders: [String]) -> String {
        var text = ""
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walker where !path.contains(".build/")
                && [".swift", ".sh", ".py"].contains(where: { path.hasSuffix($0) }) {
                text += (try? String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)) ?? ""
                text += "\n"
            }
        }
        return text
    }

    static func matches(_ pattern: String, in text: String, group: Int = 0) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, options: [], range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    @Test(arguments: pages)
    func environmentVariablesExist(_ page: Page) {
        let sources = Self.sourceText(["Server/Sources", "Server/Tests/FlintTestSupport", "scripts"])
        for name in Set(Self.matches(#"\bFLINT_[A-Z0-9_]*[A-Z0-9]\b"#, in: page.text)).sorted() {
            let read = ["\"\(name)\"", "\(name)=", "${\(name)", "$\(name)"].contains { sources.contains($0) }
            #expect(read, "\(page): \(name) is read nowhere in Server/Sources, the test support or scripts/")
        }
    }

    /// Names of other products the pages mention (the web SDK, FirebaseAuth), not Flint's.
    static let foreignNames: Set<String> = ["connectAuthEmulator", "getRedirectResult", "signInWithPopup", "signInWithSamlIdp"]

    /// Config keys (`signIn.allowDuplicateEmails`), wire fields and API names in the prose's code are spelled as the
    /// sources spell them.
    @Test(arguments: pages)
    func camelCaseNamesExistInTheSources(_ page: Page) {
        let identifiers = Self.identifiers
        for span in Self.codeSpans(of: page) {
            for name in Self.matches(#"(?<![A-Za-z0-9_-])[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"#, in: span)
            where !identifiers.contains(name) && !Self.foreignNames.contains(name) {
                Issue.record("\(page): `\(span)` names \(name), which no source file has")
            }
        }
    }

    static let identifiers: Set<String> = Set(matches(#"[A-Za-z_][A-Za-z0-9_]*"#, in: sourceText(["Sources", "Server/Sources", "Integrations/FlintAdminHummingbird/Sources"])))

    /// Flags of other tools the pages show (swift build, pg_restore).
    static let foreignFlags: Set<String> = ["--package-path", "--product", "--show-bin-path", "--static-swift-stdlib",
                                            "--traits", "--filter", "--clean", "--build-tests"]

    /// Every `--flag` in the prose's code is one of the CLI's (read from its own `--experimental-dump-help`).
    @Test func flagsExistInTheCLI() async throws {
        let process = try ChildProcess.launch(Self.flint.path, ["--experimental-dump-help"])
        let result = await process.finish()
        #expect(result.status == 0, "\(result.errors)")
        var flags = Set(Self.matches(#""name"\s*:\s*"([a-z0-9-]+)""#, in: result.output, group: 1).map { "--" + $0 })
        #expect(flags.contains("--database-url") && flags.contains("--hash-algo"), "the CLI's help named \(flags.sorted())")
        // Options a package trait adds (`--otlp-endpoint`, OTLP) are not in this build's help: their declarations count.
        let declared = Self.matches(#"customLong\("([a-z0-9-]+)"\)"#, in: Self.sourceText(["Server/Sources/flint"]), group: 1)
        flags.formUnion(declared.map { "--" + $0 })
        for page in Self.pages {
            for span in Self.codeSpans(of: page) {
                for flag in Self.matches(#"(?<![A-Za-z0-9-])--[a-z][a-z0-9-]*"#, in: span) where !Self.foreignFlags.contains(flag) {
                    let known = flag.hasSuffix("-") ? flags.contains { $0.hasPrefix(flag) } : flags.contains(flag)
                    #expect(known, "\(page): `\(span)` names \(flag), which flint has not")
                }
            }
        }
    }

    // MARK: Links

    /// GitHub's anchor of a heading.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
        })
    }

    static func anchors(of text: String) -> Set<String> {
        Set(prose(of: Page(name: "", text: text)).components(separatedBy: "\n").filter { $0.hasPrefix("#") }
            .map { anchor($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) })
    }

    @Test(arguments: pages)
    func linksResolve(_ page: Page) throws {
        let folder = Self.root.appendingPathComponent(page.name).deletingLastPathComponent()
        for target in Self.matches(#"\]\(([^)\s]+)\)"#, in: Self.prose(of: page), group: 1) where !target.contains("://") {
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let file = parts[0].isEmpty ? Self.root.appendingPathComponent(page.name) : folder.appendingPathComponent(parts[0])
            guard FileManager.default.fileExists(atPath: file.path) else {
                Issue.record("\(page): the link to \(target) leads to no file")
                continue
            }
            if parts.count == 2, file.pathExtension == "md" {
                let text = try String(contentsOf: file, encoding: .utf8)
                #expect(Self.anchors(of: text).contains(parts[1]), "\(page): \(target) names no heading of \(parts[0])")
            }
        }
    }
}
