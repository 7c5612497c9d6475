import JuiceDelivery
import JuiceMakerCore
import JuicePrimitives
import JuiceMakerPluginKit

/// What `juice deliver --follow` does on SIGHUP: reads its config again, from the file it
/// started with, and applies what changed among the enabled durable subscribers.
///
/// A config that does not read and check (the same checks as `juice config check`:
/// the keys, then each changed subscriber's own) is refused with one line on stderr,
/// and the one in use stays. Otherwise: an unchanged subscriber keeps running,
/// untouched; a removed one stops as at exit (by `flushDeadlineSeconds`); a changed one
/// stops the same way, then starts again from its cursor with its new settings; an
/// added one starts from its cursor. No event is lost (cursors move only after a
/// delivery succeeded), and a reload sends again at most what a changed or removed
/// subscriber had in flight when it stopped (at most its `maxInFlight`, once). Other
/// keys (store, retention, language, flushDeadlineSeconds, non-durable subscribers)
/// take effect at the next start.
enum DeliverReload {
    /// Reloads; returns the config now in effect.
    static func reload(_ session: Session, current: JuiceConfig) async -> JuiceConfig {
        let context = session.context
        let stderr = context.console.standardError
        let language = context.language
        let next: JuiceConfig
        do throws(ConfigurationError) {
            let text: String
            let source: ConfigSource
            if let file = current.source.file {
                (source, text) = try ConfigLocator(environment: context.environment, workingDirectory: "/").locate(option: file)
            } else {
                (source, text) = (.builtIn, BuiltInConfig.text)
            }
            next = try ConfigValidator(registry: context.registry, source: source, environment: context.environment).load(text)
        } catch {
            stderr.write("juice: \(Catalog.Delivery.reloadRefused(Catalog.Errors.config(error))(language))\n")
            return current
        }
        let isDurable = { (entry: SubscriberEntry) in
            entry.enabled && context.registry.plugin(named: entry.type)?.isDurable == true
        }
        let before = Dictionary(current.subscribers.filter(isDurable).map { ($0.name, $0) }) { first, _ in first }
        let after = next.subscribers.filter(isDurable)
        let changed = after.filter { entry in before[entry.name].map { !same($0, entry) } ?? false }.map(\.name)
        let added = after.filter { before[$0.name] == nil }.map(\.name)
        let removed = before.keys.filter { name in !after.contains { $0.name == name } }.sorted()
        let starting = after.filter { changed.contains($0.name) || added.contains($0.name) }
        let deadline = ContinuousClock.now + .milliseconds(Int(current.flushDeadlineSeconds * 1000))
        let built: [BuiltPlugin]
        do throws(ConfigurationError) {
            built = try await context.registry.build(starting, of: next, context: { context.pluginContext(for: $0) }, deadline: deadline)
        } catch {
            stderr.write("juice: \(Catalog.Delivery.reloadRefused(Catalog.Errors.config(error))(language))\n")
            return current
        }
        let stopping = Set(changed + removed)
        await PluginRegistry.shutDown(session.builtPlugins.filter { stopping.contains($0.entry.name) }, deadline: deadline)
        do throws(CLIError) {
            try session.replace(removing: stopping, adding: built)
        } catch {
            stderr.write("juice: \(Catalog.Delivery.reloadRefused(error.message)(language))\n")
        }
        for plugin in built { plugin.durable?.delivery?.follow() }
        stderr.write(
            "juice: \(Catalog.Delivery.reloaded(added: added, changed: changed, removed: removed, kept: after.count - added.count - changed.count)(language))\n"
        )
        return next
    }

    /// Whether two entries of one name run the same way.
    private static func same(_ one: SubscriberEntry, _ other: SubscriberEntry) -> Bool {
        one.type == other.type && one.enabled == other.enabled && one.configuration.values == other.configuration.values
    }
}

extension Catalog.Delivery {
    static func reloadRefused(_ why: LocalizedText) -> LocalizedText {
        LocalizedText(
            "config not reloaded, the one in use stays: \(why.english)",
            ko: "설정을 다시 읽지 않았습니다. 쓰던 설정을 그대로 씁니다: \(why.korean)")
    }

    static func reloaded(added: [String], changed: [String], removed: [String], kept: Int) -> LocalizedText {
        func names(_ list: [String]) -> String { list.isEmpty ? "-" : list.map { Catalog.echo($0) }.joined(separator: ", ") }
        return LocalizedText(
            "config reloaded: started \(names(added)), restarted \(names(changed)), stopped \(names(removed)), \(kept) unchanged",
            ko: "설정을 다시 읽었습니다: 시작 \(names(added)), 다시 시작 \(names(changed)), 멈춤 \(names(removed)), 그대로 \(kept)개")
    }
}
