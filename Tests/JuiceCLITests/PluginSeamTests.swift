import Foundation
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// The CLI reaches plugins only through the registry and the capabilities the kit
/// declares: no command imports a plugin module or tests for a plugin's type.
@Suite(.tags(.unit)) struct PluginSeamTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func onlyTheRegistryImportsPluginModules() throws {
        // The fleet commands reach NATS through its transport (`NATSClient`), not its plugin.
        // A plugin module is named `<Folder>Plugin` (`import WebhookPlugin`, `@testable import …`).
        let importing = try Self.files(in: "Sources/JuiceCLI") { $0.hasSuffix("Plugin") }
        #expect(importing.contains("PluginRegistry.swift"))
        #expect(importing == ["PluginRegistry.swift"], "\(importing.sorted())")
    }

    /// The transports stand below the domain, the kit and the fleet's config: what they
    /// share with them (a message in both languages, URLs, RFC 3339 dates, text search,
    /// TLS files) is in `JuicePrimitives`. A transport imports the system, `Locking`,
    /// `JuicePrimitives` and its own C targets, nothing else.
    @Test func theTransportsImportOnlyTheSystemLockingAndThePrimitives() throws {
        let allowed: Set = [
            "Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Locking", "JuicePrimitives", "CTLS", "CDynamicLibrary",
            "CNATSLoader",
        ]
        for transport in ["JuiceHTTP", "NATSClient"] {
            let importing = try Self.files(in: "Sources/\(transport)") { !allowed.contains($0) }
            #expect(importing == [], "\(transport): \(importing.sorted())")
        }
    }

    /// The Swift files of `folder` with an import of a module `imported` picks.
    private static func files(in folder: String, importing imported: (String) -> Bool) throws -> [String] {
        let sources = root.appendingPathComponent(folder)
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var importing: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            let imports = text.split(separator: "\n").contains { line in
                // `import M`, `@testable import M`: not a comment that mentions an import.
                let words = line.split(separator: " ")
                let isImport = words.first == "import" || (words.first?.hasPrefix("@") == true && words.dropFirst().first == "import")
                return isImport && imported(words.last.map(String.init) ?? "")
            }
            if imports { importing.append(file.lastPathComponent) }
        }
        return importing
    }

    /// `juice subscribers` asks a declaration (`isFedFromFleet`) what `juice fleet
    /// deliver` asks a built plugin (`fleetRole`): for every shipped plugin they agree.
    @Test func eachTypeSaysWhetherItsPluginsAreFedFromTheFleet() async throws {
        let directory = try TemporaryDirectory()
        let sections: [String: [(key: String, value: JSONValue)]] = [
            "logger": [("path", .string("juice.log"))], "webhook": [("url", .string("https://example.com/hook"))],
            "command": [("command", .array([.string("/bin/cat")]))], "nats": [("url", .string("nats://127.0.0.1:4222"))],
        ]
        var fed: [String] = []
        for type in PluginRegistry.standard.declarations {
            let plugin: BuiltPlugin
            do {
                let entry = SubscriberEntry(
                    path: "subscribers[0]", type: type.type, name: type.type, enabled: true, configuration: section(sections[type.type] ?? []))
                plugin = try BuiltPlugin(entry: entry, declaration: type, context: Rig().context(stateDirectory: directory.path))
            } catch {
                // Only the `nats` of a build without libnats refuses to be built.
                #expect(type.type == "nats" && !type.isFedFromFleet, "\(type.type): \(error)")
                continue
            }
            let hasRole = if case .none = plugin.fleetRole { false } else { true }
            #expect(type.isFedFromFleet == hasRole, "\(type.type)")
            if hasRole { fed.append(type.type) }
            await plugin.shutdown(deadline: generousDeadline())
        }
        #expect(fed == ["logger", "webhook", "command"])
    }

    @Test func commandsRenderEventsAsTheNotifierDoes() throws {
        let store = InMemoryStore(initialStock: Stock(repeating: 10))
        let maker = JuiceMaker(store: store)
        try maker.make(.strawberry)
        try maker.make(.kiwi)
        let events = try store.events(after: 0, limit: 100)
        let style = EventRenderingStyle(language: .korean, color: false, asks: true)
        let standard = PluginRegistry.standard.eventRenderer(style)
        let made = try #require(events.first { $0.event.kind == .juiceMade })
        #expect(standard.lines(for: made) == ["키위쥬스 나왔습니다! 맛있게 드세요!"])
        let failed = try #require(events.first { $0.event.kind == .orderFailed })
        #expect(standard.lines(for: failed).last == "  🍓 딸기 6개 부족")
        // A registry whose plugins render nothing shows each event as its JSON line.
        let bare = PluginRegistry(declarations: PluginRegistry.standard.declarations.filter { $0.eventRenderer == nil })
        #expect(events.map(bare.eventRenderer(style).lines(for:)) == events.map { [CloudEventFormat.encode($0)] })
    }
}
