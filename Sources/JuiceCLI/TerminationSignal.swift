import Dispatch
import Foundation
import Synchronization

/// SIGTERM as a request to stop (what service managers send), not a kill: while one
/// of these lives, SIGTERM only raises a flag the command looks at.
final class TerminationSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    // Created, resumed and cancelled here only; Dispatch sources are thread-safe
    // objects, so sharing the reference is sound.
    private nonisolated(unsafe) let source: any DispatchSourceSignal

    init() {
        signal(SIGTERM, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "juice.terminate"))
        source.setEventHandler { [weak self] in self?.requested.store(true, ordering: .releasing) }
        source.resume()
    }

    deinit { source.cancel() }

    var isRequested: Bool { requested.load(ordering: .acquiring) }
}
