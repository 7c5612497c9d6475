import FleetConfiguration
import JuiceMakerCore
import JuiceMakerPluginKit
import NATSClient

/// A subscriber's delivery from the fleet's stream (`juice fleet deliver`), as `juice
/// subscribers` shows it on a line of its own, `<name>@fleet`: its consumer's ack floor
/// and lag (messages not yet acknowledged: pending plus unacknowledged), read from the
/// server, and its retry state and dead letters, kept in the local store.
struct FleetSubscriberStatus {
    let entry: SubscriberEntry
    /// The consumer's ack floor (a stream sequence); `nil` when not read.
    let cursor: UInt64?
    /// The consumer's lag; `nil` when not read.
    let lag: UInt64?
    let retry: DeliveryRetryState?
    let deadLetters: Int
    /// Of `deadLetters`, those kept from a stream that is gone (deleted, or deleted and
    /// created again): the stream read now no longer holds their events. 0 when the
    /// server was not asked.
    let deadLettersOfGoneStreams: Int

    /// The name it is listed (and retried) under.
    var name: String { Fleet.bookkeepingName(entry.name) }

    /// A line for each subscriber `juice fleet deliver` feeds (durable ones and loggers)
    /// that has a consumer on the fleet's server or bookkeeping in the store. The server
    /// is asked only when the config has a `fleet` section with a `url`; when it does
    /// not answer, `warn` hears why once and lags are unknown (a stream that does not
    /// exist yet has no consumers: nothing is said).
    static func read(
        _ context: CommandContext, journal: any DeliveryJournal, warn: (String) -> Void
    ) throws(StoreError) -> [FleetSubscriberStatus] {
        let fed = context.config.subscribers.filter { entry in context.registry.plugin(named: entry.type)?.isFedFromFleet ?? false }
        guard !fed.isEmpty else { return [] }
        let (consumers, stream) = consumerStates(context, names: fed.map(\.name), warn: warn)
        var lines: [FleetSubscriberStatus] = []
        for entry in fed {
            let kept = Fleet.bookkeepingName(entry.name)
            let retry = try journal.retryState(for: kept)
            let letters = try journal.deadLetters(for: kept)
            let consumer = consumers[entry.name]
            guard consumer != nil || retry != nil || !letters.isEmpty else { continue }
            lines.append(
                FleetSubscriberStatus(
                    entry: entry, cursor: consumer?.cursor, lag: consumer?.lag, retry: retry, deadLetters: letters.count,
                    deadLettersOfGoneStreams: stream.map { goneStreamLetters(letters, now: $0) } ?? 0))
        }
        return lines
    }

    /// How many of `letters` name a stream other than the one the server has now.
    private static func goneStreamLetters(_ letters: [DeadLetter], now: Int64) -> Int {
        letters.count { letter in StreamIdentity.unmarked(letter.lastError).stream.map { $0.created != now } ?? false }
    }

    /// Each subscriber's consumer (ack floor, lag) that exists on the fleet's server, and
    /// when the stream there was created (nanoseconds since 1970; `nil`: not read).
    private static func consumerStates(
        _ context: CommandContext, names: [String], warn: (String) -> Void
    ) -> (consumers: [String: (cursor: UInt64, lag: UInt64)], stream: Int64?) {
        guard let section = context.config.fleet, (try? section.string(Fleet.readerURLKey)) != nil else { return ([:], nil) }
        let reader: FleetCommandSupport.Reader
        do {
            reader = try FleetCommandSupport.reader(context, nats: nil)
        } catch {
            // No stream yet: no consumer either, nothing to say.
            if error.code != .unavailable || !error.message.english.hasPrefix("no machine has published") {
                warn(error.message(context.language))
            }
            return ([:], nil)
        }
        defer { reader.connection.close() }
        var states: [String: (cursor: UInt64, lag: UInt64)] = [:]
        for name in names {
            do {
                if let state = try reader.connection.consumer(Fleet.consumerName(name), of: reader.stream) {
                    states[name] = (state.ackFloor, state.lag)
                }
            } catch {
                warn(error.message)
                return (states, reader.summary.created)
            }
        }
        return (states, reader.summary.created)
    }
}
