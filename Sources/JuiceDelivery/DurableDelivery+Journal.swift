#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// The runner's bookkeeping in the journal (cursor writes, closed after shutdown,
/// store failures reported once) and the threads it runs its blocking work on.
extension DurableDelivery {
    /// Runs `body` unless shutdown has closed the journal to this runner; a store
    /// failure is reported. Returns whether it ran and succeeded.
    func write(_ body: () throws(StoreError) -> Void) -> Bool {
        guard !state.withLock({ $0.writesClosed }) else { return false }
        do throws(StoreError) {
            try body()
            return true
        } catch {
            reportStoreFailure(error)
            return false
        }
    }

    /// Writes the cursor up to what is handled; when events were delivered since the
    /// last write (not only passed over or given up on), with the time now as the
    /// subscriber's last success (`EventJournal.lastDelivery(for:)`).
    func persistCursor() {
        let (target, needed, delivered, recorded) = state.withLock {
            ($0.handledUpTo, $0.handledUpTo > $0.persistedUpTo, $0.statistics.delivered, $0.deliveredWhenPersisted)
        }
        guard needed else { return }
        let written = write { () throws(StoreError) in
            if delivered > recorded {
                try journal.setCursor(named: name, to: target, deliveredAt: Date().timeIntervalSince1970)
            } else {
                try journal.setCursor(named: name, to: target)
            }
        }
        if written {
            update { state in
                state.persistedUpTo = max(state.persistedUpTo, target)
                state.deliveredWhenPersisted = max(state.deliveredWhenPersisted, delivered)
            }
        }
    }

    func reportStoreFailure(_ error: StoreError) {
        if update({ state in
            defer { state.storeFailureReported = true }; return !state.storeFailureReported
        }) {
            let store = describeStoreError(error)
            reportError(
                PluginMessage(
                    english:
                        "cannot read or update its place in the journal: store \(error.path): \(store.english); delivery resumes when the store answers",
                    korean: "저널에서 전달 위치를 읽거나 고칠 수 없습니다. 저장소 \(error.path): \(store.korean). 저장소가 응답하면 전달을 다시 시작합니다"))
        }
    }

    /// Runs `body` on a thread of its own, named for debuggers.
    static func spawn(_ label: String, _ body: @escaping @Sendable () -> Void) {
        startDetachedThread(named: label, body)
    }

    /// Runs blocking `body` on a thread of its own and awaits its result, so the
    /// cooperative pool never waits on the store.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            spawn("juice.delivery.call") { continuation.resume(returning: body()) }
        }
    }
}
