import CNATSLoader
import Locking

/// Says when a connection that reconnects by itself is lost, and when it is back with
/// how long it was away (`NATSOptions.connectionReport`): libnats calls
/// `disconnectedHandler` and `reconnectedHandler` on its own thread. A connection this
/// process closes (`NATSConnection.close()`, its end of life) says nothing.
final class ConnectionWatch: Sendable {
    private struct State {
        var lostAt: ContinuousClock.Instant?
        var closing = false
    }

    private let state = Locked(State())
    private let servers: String
    private let report: @Sendable (String) -> Void

    init(servers: String, report: @escaping @Sendable (String) -> Void) {
        self.servers = servers
        self.report = report
    }

    /// This process closes the connection: what follows is no loss.
    func closing() {
        state.withLock { $0.closing = true }
    }

    /// Called on libnats' thread when the connection is lost.
    func lost() {
        let says = state.withLock { state -> Bool in
            guard !state.closing, state.lostAt == nil else { return false }
            state.lostAt = .now
            return true
        }
        if says { report("lost the connection to \(servers); reconnecting (nothing is delivered meanwhile)") }
    }

    /// Called on libnats' thread when the connection is back.
    func back() {
        let away = state.withLock { state -> Duration? in
            defer { state.lostAt = nil }
            return state.lostAt.map { ContinuousClock.now - $0 }
        }
        guard let away else { return }
        let tenths = Int(away / .milliseconds(100))
        report("connected again to \(servers) after \(tenths / 10).\(tenths % 10) s away")
    }
}

/// libnats' callbacks, handing the event to the `ConnectionWatch` in `closure`.
let disconnectedHandler: natsConnectionHandler = { _, closure in
    guard let closure else { return }
    Unmanaged<ConnectionWatch>.fromOpaque(closure).takeUnretainedValue().lost()
}

let reconnectedHandler: natsConnectionHandler = { _, closure in
    guard let closure else { return }
    Unmanaged<ConnectionWatch>.fromOpaque(closure).takeUnretainedValue().back()
}
