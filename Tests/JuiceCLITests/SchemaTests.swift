import Foundation
import JuiceMakerCore
import Testing
@testable import JuiceCLI

/// `config/juice-maker.schema.json` and the config parser accept the same keys: every
/// key the parser accepts is in the schema, and the schema names no other. The
/// shipped config passes the parser.
@Suite struct SchemaTests {
    private static let configDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config")

    private func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: Self.configDirectory.appendingPathComponent("juice-maker.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func keys(_ object: Any?) -> Set<String> {
        Set(((object as? [String: Any])?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    @Test func topLevelAndStoreKeysMatch() throws {
        let schema = try schema()
        #expect(schema["additionalProperties"] as? Bool == false)
        #expect(keys(schema) == Set(ConfigKeys.topLevel))
        let store = (schema["properties"] as? [String: Any])?["store"]
        #expect(keys(store) == Set(ConfigKeys.store))
        #expect((store as? [String: Any])?["additionalProperties"] as? Bool == false)
    }

    @Test func subscriberKeysMatchEveryRegisteredPlugin() throws {
        let schema = try schema()
        let items = try #require(((schema["properties"] as? [String: Any])?["subscribers"] as? [String: Any])?["items"] as? [String: Any])
        #expect(keys(items) == Set(ConfigKeys.commonSubscriber))
        let typeEnum = ((items["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(typeEnum ?? []) == Set(PluginRegistry.standard.typeNames))
        let branches = try #require(items["allOf"] as? [[String: Any]])
        var seen: Set<String> = []
        for branch in branches {
            let type = try #require(((((branch["if"] as? [String: Any])?["properties"] as? [String: Any])?["type"]) as? [String: Any])?["const"] as? String)
            let plugin = try #require(PluginRegistry.standard.plugin(named: type), "schema names unknown type \(type)")
            let then = branch["then"] as? [String: Any]
            #expect(then?["additionalProperties"] as? Bool == false)
            #expect(keys(then) == Set(ConfigKeys.commonSubscriber + plugin.configurationKeys), "\(type)")
            seen.insert(type)
        }
        #expect(seen == Set(PluginRegistry.standard.typeNames))
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
