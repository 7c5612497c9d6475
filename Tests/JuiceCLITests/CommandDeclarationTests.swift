import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// Each command is declared once (`CommandConfiguration`); the parser's grammar and
/// `--help` are derived from the declarations. Walking the declarations from
/// `JuiceRoot`: `juice <path> --help` lists exactly the options (and arguments and
/// subcommands) that command declares, and the parser accepts exactly its options.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct CommandDeclarationTests {
    /// Every declaration under `juice`, with the words that name it (`[]` for `juice`).
    static let declared = walk(JuiceRoot.self, [])

    struct Declared: Sendable {
        let words: [String]
        let declaration: any CommandDeclaration.Type
    }

    static func walk(_ declaration: any CommandDeclaration.Type, _ words: [String]) -> [Declared] {
        [Declared(words: words, declaration: declaration)]
            + declaration.configuration.subcommands.flatMap { walk($0, words + [$0.configuration.commandName]) }
    }

    /// The paths of the derived tree the parser and help read.
    static func paths(_ spec: CommandSpec, _ words: [String]) -> [[String]] {
        [words] + spec.subcommands.flatMap { paths($0, words + [$0.name]) }
    }

    /// Every option some command declares, by long name.
    static let everyDeclaredOption: [String: OptionSpec] = Dictionary(
        declared.flatMap { $0.declaration.declaredOptions }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    static func declaration(_ words: [String]) throws -> any CommandDeclaration.Type {
        try #require(declared.first { $0.words == words }?.declaration, "\(words) is not declared")
    }

    @Test func theTableIsTheDeclarations() {
        let derived = Self.paths(CommandTable.root, [])
        #expect(derived == Self.declared.map(\.words))
        #expect(Self.declared.count > 1)
        // No two siblings share a name, so every path names one command.
        #expect(Set(derived).count == derived.count)
    }

    @Test(arguments: CommandDeclarationTests.declared.map(\.words), [Language.english, .korean])
    func helpListsExactlyTheDeclaredOptions(words: [String], language: Language) throws {
        let configuration = try Self.declaration(words).configuration
        let declaredOptions = try Self.declaration(words).declaredOptions
        let declaredArguments = try Self.declaration(words).declaredArguments
        let result = try JuiceSandbox().run(words + ["--help", "--lang", language.rawValue])
        #expect(result.status == 0, "\(words): \(result.stderr)")
        let help = result.stdout

        #expect(help.hasPrefix("\(Catalog.Help.overviewHeading(language)): \(configuration.abstract(language))\n"))
        var own = declaredOptions
        if words.isEmpty { own.append(CommandTable.versionOption) }
        own.append(CommandTable.helpOption)
        let options = Self.rows(of: Catalog.Help.optionsHeading(language), in: help)
        #expect(options.map(\.label) == own.map(\.helpLabel), "\(words)")
        #expect(options.map(\.text) == own.map { $0.help(language) }, "\(words)")
        let global = Self.rows(of: Catalog.Help.globalOptionsHeading(language), in: help)
        #expect(global.map(\.label) == CommandTable.globalOptions.map(\.helpLabel), "\(words)")

        let arguments = Self.rows(of: Catalog.Help.argumentsHeading(language), in: help)
        #expect(arguments.map(\.label) == declaredArguments.map(\.synopsis), "\(words)")
        #expect(arguments.map(\.text) == declaredArguments.map { $0.help(language) }, "\(words)")
        let subcommands = Self.rows(of: Catalog.Help.subcommandsHeading(language), in: help)
        #expect(subcommands.map(\.label) == configuration.subcommands.map { $0.configuration.commandName }, "\(words)")
        #expect(subcommands.map(\.text) == configuration.subcommands.map { $0.configuration.abstract(language) }, "\(words)")

        // The usage line offers exactly the declared options, in order; a required one without brackets.
        let usagePrefix = "\(Catalog.Help.usageHeading(language)): "
        let usage = try #require(help.split(separator: "\n").first { $0.hasPrefix(usagePrefix) })
        #expect(usage.hasPrefix(usagePrefix + (["juice"] + words).joined(separator: " ")))
        let offered = usage.split(separator: " ").filter { $0.hasPrefix("[--") || $0.hasPrefix("--") }.map {
            String($0.drop { $0 == "[" }.prefix { $0 != "]" && $0 != " " })
        }
        #expect(offered == declaredOptions.map { "--\($0.name)" }, "\(words): \(usage)")
        for option in declaredOptions {
            #expect(usage.contains("[--\(option.name)") != option.isRequired, "\(words): \(usage)")
        }
    }

    @Test(arguments: CommandDeclarationTests.declared.map(\.words))
    func theParserAcceptsExactlyTheDeclaredOptions(words: [String]) throws {
        let declaration = try Self.declaration(words)
        let parser = CommandLineParser.juice
        let base = words + declaration.declaredArguments.map { _ in "x" }
        let runnable = declaration as? any JuiceCommand.Type

        for option in declaration.declaredOptions {
            let given = base + ["--\(option.name)"] + (option.takesValue ? ["1"] : [])
            if runnable == nil {
                // A group runs nothing: its own options parse, then it asks for a subcommand.
                #expect(throws: CLIError.self) { try parser.parse(given) }
                continue
            }
            guard case .run(let invocation) = try parser.parse(given) else {
                Issue.record("\(given) did not parse to a command")
                continue
            }
            #expect(invocation.command.runnable == runnable, "\(given)")
            #expect(invocation.path.map(\.name) == ["juice"] + words)
            #expect(invocation.given(option) == (option.takesValue ? ["1"] : [""]), "\(given)")
        }

        let ownNames = Set(declaration.declaredOptions.map(\.name) + CommandTable.globalOptions.map(\.name))
        for option in Self.everyDeclaredOption.values where !ownNames.contains(option.name) {
            let given = base + ["--\(option.name)"] + (option.takesValue ? ["1"] : [])
            do {
                _ = try parser.parse(given)
                Issue.record("\(given) parsed, but \(words) does not declare --\(option.name)")
            } catch {
                #expect(error.code == .usage)
                #expect(error.message == Catalog.Errors.unknownOption("--\(option.name)"), "\(given)")
                #expect(error.usage?.map(\.name) == ["juice"] + words, "\(given)")
            }
        }

        if let runnable {
            guard case .run(let invocation) = try parser.parse(base) else {
                Issue.record("\(base) did not parse to a command")
                return
            }
            #expect(invocation.command.runnable == runnable)
        } else {
            #expect(throws: CLIError.self) { try parser.parse(base) }
        }
    }

    @Test func aCommandThatNeedsNoStoreLeavesNoStoreDirectory() throws {
        let needsPlugins = Self.declared.filter { ($0.declaration as? any JuiceCommand.Type)?.needs == .plugins }
        #expect(needsPlugins.map(\.words).contains(["config", "check"]))
        let sandbox = try JuiceSandbox()
        let directory = (sandbox.storePath as NSString).deletingLastPathComponent
        for command in needsPlugins {
            let words = command.words + command.declaration.declaredArguments.map { _ in "x" }
            let result = try sandbox.run(words)
            // `config …` succeeds. The others need more than this sandbox has (`store recover`
            // its `--to`, `fleet …` a NATS server); what matters here is that they create nothing.
            if command.words.first == "config" { #expect(result.status == 0, "\(words): \(result.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: directory), "\(words) created \(directory)")
        }
        #expect(try sandbox.run(["stock"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.storePath))
    }

    /// The rows of one section of a help page: each row's label and its text.
    static func rows(of heading: String, in help: String) -> [(label: String, text: String)] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "\(heading):" }) else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.map { line in
            let body = line.dropFirst(2)
            guard let gap = body.firstRange(of: "  ") else { return (String(body), "") }
            return (String(body[..<gap.lowerBound]), String(body[gap.upperBound...].drop { $0 == " " }))
        }
    }
}
