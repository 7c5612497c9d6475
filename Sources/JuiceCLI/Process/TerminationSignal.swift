import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Locking
import Synchronization

/// SIGTERM as a request to stop (what service managers send), not a kill: while one
/// of these lives, SIGTERM only raises a flag the command looks at.
final class TerminationSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    /// The signal source, reached only through its lock (created, resumed and
    /// cancelled here).
    private let source: Locked<any DispatchSourceSignal>

    init() {
        signal(SIGTERM, SIG_IGN)
        source = Locked(DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "juice.terminate")))
        source.withLock { source in
            source.setEventHandler { [weak self] in self?.requested.store(true, ordering: .releasing) }
            source.resume()
        }
    }

    deinit { source.withLock { $0.cancel() } }

    var isRequested: Bool { requested.load(ordering: .acquiring) }
}
