#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import FleetConfiguration
import JuiceDelivery
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// Everything one command may use, decided before it runs.
struct CommandContext: Sendable {
    let invocation: Invocation
    let settings: GlobalSettings
    let config: JuiceConfig
    let console: Console
    let registry: PluginRegistry
    let environment: [String: String]
    let location: StoreLocation

    var language: Language { console.language }

    /// What a plugin is told. Output for the person goes to stdout, to stderr under
    /// `--json` (stdout is for the JSON), and nowhere under `--quiet`.
    func pluginContext(for entry: SubscriberEntry) -> PluginContext {
        let personal: any TextSink = settings.quiet ? NullSink() : settings.json ? console.standardError : console.standardOutput
        var context = PluginContext(
            name: entry.name, language: language, colorAllowed: settings.colorAllowed,
            stateDirectory: location.stateDirectory, environment: environment,
            standardOutput: personal, standardError: console.standardError,
            mayAsk: invocation.command.runnable?.isScreen ?? false)
        context.files = files
        return context
    }

    /// The gate every file this command opens passes through, guarding its store.
    var files: FileGate { location.fileGate }

    /// Prints a command's result on standard output: with `--json`, `json` as one
    /// compact line; otherwise `lines`, one a line, which `--quiet` drops unless they are
    /// `shownWhenQuiet` (what went wrong). Only the form printed is made.
    func printResult(json: @autoclosure () -> JSONValue, lines: @autoclosure () -> [String], shownWhenQuiet: Bool = false) {
        if settings.json {
            console.print(JSONWriter.compact(json()))
        } else if shownWhenQuiet || !settings.quiet {
            for line in lines() { console.print(line) }
        }
    }
}

/// The live parts of one run: the plugins built from the config, then (on first use)
/// the store and the maker. Torn down by `close()` in reverse: the bus is drained,
/// then each plugin is shut down by the flush deadline.
///
/// Used by one task only; not shared.
final class Session {
    let context: CommandContext
    private var plugins: [BuiltPlugin]
    /// Whether the command declared it needs the store (`CommandNeeds.store`).
    private let opensStore: Bool
    private var opened: (store: any StockStore & DeliveryJournal, maker: JuiceMaker)?
    private var attached = false
    private var stop: StopSignals?
    /// Whether `close()` looks for durable subscribers with work and hands it to a
    /// background `juice deliver` (`DeliveryHandOff`); only with `backgroundDelivery`.
    var handsOffDelivery = false

    init(context: CommandContext, plugins: [BuiltPlugin], opensStore: Bool) {
        self.context = context
        self.plugins = plugins
        self.opensStore = opensStore
    }

    var builtPlugins: [BuiltPlugin] { plugins }

    /// Whether the command should print its own one-line confirmation for `kind`:
    /// not with `--quiet` or `--json`, and not when a notifier already shows it.
    func confirms(_ kind: EventKind) -> Bool {
        !context.settings.quiet && !context.settings.json && !PluginRegistry.personSees(kind, among: plugins)
    }

    /// The store and journal, opened on first use.
    func journal() throws(CLIError) -> any StockStore & DeliveryJournal {
        try open().store
    }

    /// SIGINT, SIGTERM and SIGHUP as a request to stop, caught from the first call
    /// until the process exits. Every command that changes the stock (it attaches the
    /// plugins) or follows (`watch`) catches them, so a signal never cuts a change
    /// short nor keeps plugins from shutting down; the runner then exits with 128 +
    /// the signal (`stoppedBy`).
    ///
    /// `reloadsOnHangUp` (only `juice deliver --follow`, before anything caught signals)
    /// makes SIGHUP a request to reload the config instead (`StopSignals.reloads`).
    func stopSignals(reloadsOnHangUp: Bool = false) -> StopSignals {
        if let stop { return stop }
        let started = StopSignals(reloadsOnHangUp: reloadsOnHangUp)
        stop = started
        return started
    }

    /// The stop signal that arrived during the run, if any.
    var stoppedBy: Int32? { stop?.received }

    /// The maker; with `attachingPlugins`, every plugin is attached first (once), and
    /// stop signals are caught from then on. `handingOffDelivery` (a command that
    /// returns once its change is committed) leaves the durable subscribers unattached
    /// when the config's `backgroundDelivery` is on: `close()` hands their work to a
    /// background `juice deliver` instead.
    func maker(attachingPlugins: Bool, handingOffDelivery: Bool = false) throws(CLIError) -> JuiceMaker {
        let (store, maker) = try open()
        if attachingPlugins, !attached {
            attached = true
            _ = stopSignals()
            let stderr = context.console.standardError
            let language = context.language
            let leavesDurable = handingOffDelivery && context.config.backgroundDelivery
            if leavesDurable { handsOffDelivery = true }
            for built in plugins {
                if leavesDurable, built.durable != nil { continue }
                try attach(built, maker: maker, store: store, stderr: stderr, language: language)
            }
        }
        return maker
    }

    private func attach(
        _ built: BuiltPlugin, maker: JuiceMaker, store: any StockStore & DeliveryJournal, stderr: any TextSink, language: Language
    ) throws(CLIError) {
        let name = built.entry.name
        let host = PluginHost(
            maker: maker, journal: store,
            reportError: { detail in
                stderr.write("juice: \(Catalog.Errors.subscriberReport(name, detail)(language))\n")
            }, describeStoreError: Catalog.Errors.storeForPlugin)
        do throws(PluginError) {
            try built.attach(to: host)
        } catch {
            switch error {
            case let .store(failure): throw CLIError(.storeIO, Catalog.Errors.store(failure))
            case let .failed(message): throw CLIError(.config, Catalog.Errors.subscriberReport(name, message))
            }
        }
    }

    /// What a reload changes (`juice deliver --follow` on SIGHUP): `removed` plugins
    /// leave the session (the caller shut them down), `added` ones are attached and
    /// join it, so `close()` shuts them down. The plugins were built from the new config.
    func replace(removing removed: Set<String>, adding added: [BuiltPlugin]) throws(CLIError) {
        plugins.removeAll { removed.contains($0.entry.name) }
        let (store, maker) = try open()
        for built in added {
            try attach(built, maker: maker, store: store, stderr: context.console.standardError, language: context.language)
            plugins.append(built)
        }
    }

    private func open() throws(CLIError) -> (store: any StockStore & DeliveryJournal, maker: JuiceMaker) {
        if let opened { return opened }
        assert(opensStore, "\(context.invocation.command.name) declares CommandNeeds.plugins but opens the store")
        let store: any StockStore & DeliveryJournal
        do {
            store = try context.location.open(
                initialStock: Stock(repeating: context.config.initialStock), durability: context.config.durability)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        let stderr = context.console.standardError
        let language = context.language
        let maker = JuiceMaker(store: store, source: Fleet.source(machine: context.config.machine)) { failure in
            let detail = Catalog.Errors.subscriberFailure(failure.error)
            stderr.write("juice: \(Catalog.Errors.subscriberReport(failure.subscriber, detail)(language))\n")
        }
        opened = (store, maker)
        return (store, maker)
    }

    /// Drains the bus and shuts every plugin down, in reverse order, by the deadline.
    func close() async {
        let seconds = context.config.flushDeadlineSeconds
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        if let maker = opened?.maker {
            _ = maker.waitUntilIdle(timeout: .milliseconds(Int(seconds * 1000)))
        }
        await PluginRegistry.shutDown(plugins, deadline: deadline)
        handOffDelivery()
    }

    /// Starts a background `juice deliver` when a durable subscriber has work and
    /// nobody holds its lease (`DeliveryHandOff`). Not after a stop signal: a person
    /// who stopped `juice` stopped what it would start, too; the events wait in the
    /// journal for the next command. A problem here is reported, never fatal: the
    /// change is committed and the events are in the journal.
    private func handOffDelivery() {
        guard handsOffDelivery, context.config.backgroundDelivery, stoppedBy == nil, let store = opened?.store,
            case .file(let path, _) = context.location
        else { return }
        let subscribers = plugins.compactMap { built -> DeliveryHandOff.Subscriber? in
            guard let durable = built.durable else { return nil }
            return DeliveryHandOff.Subscriber(name: built.entry.name, kinds: durable.durable.deliverySettings.kinds)
        }
        guard !subscribers.isEmpty else { return }
        let reports = DeliveryHandOff.handOn(
            subscribers, journal: store, arguments: Self.backgroundDelivery(config: context.config.source, storePath: path),
            environment: context.environment)
        for report in reports {
            let line =
                switch report {
                case let .failing(name, waiting, retry): Catalog.Delivery.failing(name, waiting: waiting, retry: retry)
                case .storeFailed(let error): Catalog.Delivery.handOffFailed(Catalog.Errors.store(error))
                case .notStarted(let code): Catalog.Delivery.handOffFailed(Self.systemError(code))
                }
            context.console.standardError.write("juice: \(line(context.language))\n")
        }
    }

    /// The system's words for error number `code`, in both languages (it has only one).
    private static func systemError(_ code: Int32) -> LocalizedText {
        let reason = String(cString: strerror(code))
        return LocalizedText(reason, ko: reason)
    }

    /// The command line of the background `juice deliver`: this config and this store,
    /// named explicitly, so it reads what the command read.
    static func backgroundDelivery(config: ConfigSource, storePath: String) -> [String] {
        var arguments: [String] = []
        if let file = config.file { arguments += ["--config", file] }
        // `--no-wait`: a lease held means its holder delivers (and looks again when it
        // lets go), so the background run has nothing to wait for.
        return arguments + ["--store", storePath, "deliver", "--quiet", "--no-wait"]
    }
}
