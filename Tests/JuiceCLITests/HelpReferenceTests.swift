import Foundation
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// The user reference (`juice help <topic>`, `juice help --man`) is generated from the
/// declarations: every exit status, environment variable, config key and command
/// appears, and the manual page is roff that groff renders without a warning.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct HelpReferenceTests {
    let topics = HelpTopics(registry: .standard)

    @Test func everyTopicIsNamedOnceAndReachable() throws {
        let names = topics.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(names) == HelpTopics.names, "the parser's list of names is the topics'")
        for name in names {
            guard case .topic(let found, _) = try CommandLineParser.juice.parse(["help", name]) else {
                Issue.record("juice help \(name) is not a topic")
                continue
            }
            #expect(found == name)
        }
        guard case .manual = try CommandLineParser.juice.parse(["help", "--man"]) else {
            Issue.record("juice help --man is not the manual")
            return
        }
    }

    @Test func theExitStatusesAreEveryDeclaredOne() throws {
        let items = try #require(
            topics.exitCodes.blocks.compactMap { block -> [HelpItem]? in
                if case .items(let items) = block { return items }
                return nil
            }.first)
        #expect(items.map(\.term) == ExitCode.allCases.map(\.rawValue).sorted().map(String.init))
    }

    /// Every `environment["NAME"]` the product reads is declared, and nothing else is.
    @Test func theEnvironmentListIsWhatTheSourcesRead() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var read: Set<String> = []
        let pattern = try Regex(#"environment\["([A-Z_]+)"\]"#)
        for folder in ["Sources", "Plugins"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let path = enumerator?.nextObject() as? String {
                guard path.hasSuffix(".swift"), !path.hasPrefix("JuiceBench"), !path.hasPrefix("JuiceStoreProbe") else { continue }
                let text = try String(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(path), encoding: .utf8)
                for match in text.matches(of: pattern) { read.insert(String(match.output[1].substring ?? "")) }
            }
        }
        read.formUnion(["LC_ALL", "LC_MESSAGES", "LANG"])  // Language reads them from a list
        #expect(read.count > 8)
        #expect(read == EnvironmentVariables.names)
    }

    @Test func theConfigTopicNamesEveryDeclaredKey() {
        let text = TopicText().render(topics.config)
        var keys = ConfigKeys.topLevel(.standard).map(\.name) + ConfigKeys.commonSubscriber(.standard).map(\.name)
        for plugin in PluginRegistry.standard.declarations { keys += plugin.configuration.map(\.name) + ["type \"\(plugin.type)\""] }
        for key in keys {
            #expect(text.contains("\n  \(key)"), "the config topic lacks \(key)")
        }
    }

    @Test func theManualHasEveryCommandAndSection() {
        let page = manual()
        for declared in CommandDeclarationTests.declared where declared.declaration.runnable != nil && !declared.words.isEmpty {
            let line = (["juice"] + declared.words).map { "\\fB\(ManualPage.escaped($0))\\fR" }.joined(separator: " ")
            #expect(page.contains(".TP\n\(line)"), "the manual lacks \(declared.words)")
        }
        for heading in ["NAME", "SYNOPSIS", "COMMANDS", "GLOBAL OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "SIGNALS", "EXAMPLES"] {
            #expect(page.contains("\n.SH \(heading)\n"), "the manual lacks \(heading)")
        }
    }

    @Test func roffControlCharactersAreShielded() {
        #expect(ManualPage.escaped(".SH x") == "\\&.SH x")
        #expect(ManualPage.escaped("'x") == "\\&'x")
        #expect(ManualPage.escaped("a.b 'c'") == "a.b 'c'")
        #expect(ManualPage.escaped("a\\b --c") == "a\\eb \\-\\-c")
        #expect(ManualPage.escaped("a\u{1B}[2Jb") == "a [2Jb")
    }

    /// `groff -man -Tutf8 -ww` renders the page with no warning, where groff is installed.
    @Test func groffRendersTheManualWithoutAWarning() throws {
        guard let groff = ["/usr/bin/groff", "/usr/local/bin/groff"].first(where: FileManager.default.isExecutableFile) else {
            print("skipped: groff is not installed (apt-get install groff-base)")
            return
        }
        let result = try runProgram(groff, ["-man", "-Tutf8", "-ww"], input: Array(manual().utf8))
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.contains("juice \\- Make juice") || result.stdout.contains("juice - Make juice"))
    }

    private func manual() -> String {
        ManualPage(root: CommandTable.root, globalOptions: CommandTable.globalOptions, topics: topics.all, version: CommandTable.version)
            .render()
    }
}
