import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// `config/juice-maker.schema.json` is what `juice config schema` prints from the
/// declarations the validator checks with, byte for byte: the schema editors use and
/// the checker cannot disagree. The shipped config passes the parser.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct SchemaTests {
    private static let configDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config")

    @Test("the shipped schema is `juice config schema`'s output; regenerate it with that command")
    func shippedSchemaIsGenerated() throws {
        let shipped = try String(contentsOf: Self.configDirectory.appendingPathComponent("juice-maker.schema.json"), encoding: .utf8)
        let sandbox = try JuiceSandbox()
        let printed = try sandbox.run(["config", "schema"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == shipped, "run: juice config schema > config/juice-maker.schema.json")
        #expect(ConfigSchema.text(.standard) == shipped)
    }

    @Test("config schema needs no config: it runs when the config is broken")
    func schemaIgnoresTheConfig() throws {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(#"{"initialStok": 3}"#, to: "bad.json")
        let result = try sandbox.run(["config", "schema", "--config", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n"))
    }

    @Test("every key the validator accepts is in the schema, with additionalProperties false")
    func schemaNamesEveryDeclaredKey() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ConfigSchema.text(.standard).utf8)) as? [String: Any])
        #expect(object["additionalProperties"] as? Bool == false)
        let properties = try #require(object["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(ConfigKeys.topLevel(.standard).map(\.name)))
        let items = try #require((properties["subscribers"] as? [String: Any])?["items"] as? [String: Any])
        let branches = try #require(items["allOf"] as? [[String: Any]])
        #expect(branches.count == PluginRegistry.standard.declarations.count)
        for (branch, plugin) in zip(branches, PluginRegistry.standard.declarations) {
            let then = try #require(branch["then"] as? [String: Any])
            #expect(then["additionalProperties"] as? Bool == false)
            let keys = Set((then["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
            #expect(keys == Set((ConfigKeys.commonSubscriber(.standard) + plugin.configuration).map(\.name)), "\(plugin.type)")
        }
    }

    @Test func shippedConfigIsValid() throws {
        let path = Self.configDirectory.appendingPathComponent("juice-maker.json").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let config = try ConfigValidator(registry: .standard, source: .file(path), environment: [:]).load(text)
        #expect(config.subscribers.map(\.type) == ["logger", "cli-notifier"])
        let builtIn = try ConfigValidator(registry: .standard, source: .builtIn, environment: [:]).load(BuiltInConfig.text)
        #expect(builtIn.subscribers.map(\.type) == config.subscribers.map(\.type))
    }
}
