#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import Locking
import SQLiteStore

/// What `juice deliver --follow` does about retention: while `store.retention` is set,
/// it compacts the store as `juice store compact` does when it starts (unless a
/// compaction deleted events less than a day ago) and then once a day, on a thread of
/// its own, between deliveries; a stop signal ends a run between two batches.
struct FollowCompaction: Sendable {
    static let interval = Duration.seconds(86_400)

    let store: SQLiteStore
    let days: Int
    let subscribers: [String]
    let console: Console
    let quiet: Bool

    /// Nil when there is nothing to do: no retention, or no store it may write.
    init?(_ session: Session) {
        let context = session.context
        guard let days = context.config.retentionDays, let store = try? session.journal() as? SQLiteStore, !store.isReadOnly else { return nil }
        self.store = store
        self.days = days
        subscribers = session.builtPlugins.filter { $0.durable != nil }.map(\.entry.name)
        console = context.console
        quiet = context.settings.quiet
    }

    func run(stop: StopSignals) async {
        var first = true
        while !stop.isRequested {
            let recent = first ? (try? store.compactionState().compactedAt).flatMap { $0 } : nil
            if recent.map({ Date().timeIntervalSince1970 - $0 >= 86_400 }) ?? true { await compactOnce(stop: stop) }
            first = false
            await withTaskGroup(of: Void.self) { group in
                // Not polling: the daily timer itself; a stop signal ends the wait at once.
                group.addTask { try? await Task.sleep(for: Self.interval) }
                group.addTask { await stop.requested() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private func compactOnce(stop: StopSignals) async {
        let (store, days, subscribers) = (store, days, subscribers)
        let outcome = await Self.offThread { () -> Result<CompactionResult, StoreError> in
            Result { () throws(StoreError) in
                try store.compact(
                    before: Date(timeIntervalSinceNow: -Double(days) * 86_400), subscribers: subscribers, stops: { stop.isRequested })
            }
        }
        switch outcome {
        case .success(let result):
            guard !quiet, result.deletedEvents > 0 else { return }
            for line in Catalog.StoreCommands.compacted(result, store: store.path, days: days) {
                console.standardError.write(line(console.language) + "\n")
            }
        case .failure(let error):
            console.standardError.write(Catalog.Errors.store(error)(console.language) + "\n")
        }
    }

    /// `body`'s value, computed on a thread of its own (SQLite work never blocks the
    /// cooperative pool the deliveries run on).
    private static func offThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            startDetachedThread(named: "juice.compact") { continuation.resume(returning: body()) }
        }
    }
}
