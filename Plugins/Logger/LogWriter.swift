import Dispatch
import JuiceMakerPluginKit
import Locking

/// Collects log lines and writes them to a sink in batches, in the order they came.
///
/// `append` only copies the line into a buffer under a short lock and, when the
/// buffer was empty, schedules one flush on the writer's own serial queue; lines that
/// arrive while a write is under way join the next batch. So a slow disk costs one
/// `write(2)` per batch rather than per event, and never holds up the caller for long.
/// A buffer past `batchLimit` is written inline, which bounds the memory it holds.
final class LogWriter: Sendable {
    private struct Pending {
        var text = ""
        var flushScheduled = false
        var closed = false
    }

    /// Bytes of buffered text that make `append` write inline.
    static let batchLimit = 64 * 1024

    private let pending = Locked(Pending())
    /// Held while writing, so batches reach the sink whole and in order.
    /// Lock order: `sink`, then `pending`.
    private let sink: Locked<(any TextSink)?>
    private let queue: DispatchQueue

    init(sink: any TextSink, label: String) {
        self.sink = Locked(sink)
        self.queue = DispatchQueue(label: "LoggerPlugin.writer.\(label)")
    }

    /// Queues `line` (a newline is added). Lines appended after `close` are discarded.
    func append(_ line: String) {
        let action = pending.withLock { pending -> Action in
            if pending.closed { return .none }
            pending.text += line
            pending.text += "\n"
            if pending.text.utf8.count >= Self.batchLimit { return .flushNow }
            if pending.flushScheduled { return .none }
            pending.flushScheduled = true
            return .schedule
        }
        switch action {
        case .none: break
        case .flushNow: flush()
        case .schedule: queue.async { self.flush() }
        }
    }

    private enum Action { case none, flushNow, schedule }

    /// Writes everything buffered now.
    func flush() {
        sink.withLock { sink in
            let batch = pending.withLock { pending -> String in
                pending.flushScheduled = false
                defer { pending.text = "" }
                return pending.text
            }
            guard let sink, !batch.isEmpty else { return }
            sink.write(batch)
        }
    }

    /// Runs `close` on the writer's queue, after any write under way, and returns
    /// when it has finished (`true`) or at `deadline` (`false`), whichever comes
    /// first: a write stuck on a full pipe or a hung disk never holds up exit.
    func close(before deadline: ContinuousClock.Instant) async -> Bool {
        let closed = Locked(false)
        let waiters = AsyncWaiters<Bool>()
        queue.async {
            self.close()
            closed.withLock { closed in
                closed = true
                waiters.resumeSatisfied(by: true)
            }
        }
        return await waiters.wait(until: deadline, current: { closed.withLock { $0 } }, for: { $0 })
    }

    /// Writes what is buffered and lets go of the sink (closing a file sink once the
    /// last reference to it is gone). Later appends are discarded.
    func close() {
        sink.withLock { sink in
            let batch = pending.withLock { pending -> String in
                pending.closed = true
                pending.flushScheduled = false
                defer { pending.text = "" }
                return pending.text
            }
            if !batch.isEmpty { sink?.write(batch) }
            sink = nil
        }
    }
}
