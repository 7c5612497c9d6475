import CTLS
import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// A small HTTP/1.1 server on loopback (127.0.0.1, or ::1), plain or TLS, for tests:
/// the one test server. It records every request and answers what the test scripts:
/// a status, exact bytes (with or without closing), closing without an answer, or
/// never answering. Keep-alive, `Content-Length` bodies only, one thread per
/// connection (connections are answered concurrently). Nothing in it sleeps or polls:
/// its threads wait on sockets, a wake-up pipe and its state's condition, and tests
/// wait for requests with `waitForRequests`. With `latency`, each answer leaves that
/// long after its request arrived, as an endpoint across the internet would; with
/// `verify`, each request is checked (its signature) and those that fail are counted.
package final class LoopbackHTTPServer: Sendable {
    package struct Request: Sendable {
        package let method: String
        package let path: String
        /// Header names lowercased.
        package let headers: [String: String]
        package let body: [UInt8]
        /// 0-based over the server's life.
        package let index: Int
        /// The connection's number (0-based, in the order they were accepted), and the
        /// request's on that connection.
        package let connection: Int
        package let indexOnConnection: Int
        /// The request line as sent.
        package let line: String
        /// When it was read whole.
        package let arrival: ContinuousClock.Instant
        package var text: String { String(decoding: body, as: UTF8.self) }
        /// The journal sequence of the CloudEvent in the body, if it is one.
        package var sequence: Int64? { try? CloudEventFormat.decode(text).sequence }
    }

    package enum Answer: Sendable {
        /// `HTTP/1.1 <code>` with no body and these header fields; the connection stays open.
        case status(Int, headers: [(String, String)] = [])
        /// Exactly these bytes; the connection stays open for the next request.
        case bytes([UInt8])
        /// These bytes, then the server closes the connection.
        case bytesThenClose([UInt8])
        /// Closes the connection without answering.
        case close
        /// Never answers; the connection stays open until the client closes it or the
        /// server stops.
        case hang
    }

    /// TLS through the system's libssl, with this certificate chain and private key
    /// (PEM files).
    package struct TLS: Sendable {
        package let certificate: String
        package let key: String

        package init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    struct State {
        var listener: Int32 = -1
        /// The write end of the accept loop's wake-up pipe.
        var wake: Int32 = -1
        /// Open connections; a connection's thread takes its own out before closing it.
        var connections: Set<Int32> = []
        var requests: [Request] = []
        var running = false
        /// While stopped: a socket bound to the port and not listening, so the port stays
        /// this server's (a connection to it is refused, as to a closed port) and no
        /// other socket of a test running beside it takes it before the next `start`.
        var reserved: Int32 = -1
        var accepted = 0
        var handshakes = 0
        var failedHandshakes = 0
        /// Requests `verify` refused.
        var failedVerification = 0
        /// How many times the server stopped: an answer waiting out its latency ends
        /// early when this changes.
        var stops = 0
        /// Made at the first `start` of a TLS server.
        var tlsContext: TLSContext?
    }

    /// The port, chosen by the system at the first `start` and kept across restarts.
    private let boundPort = Locked<UInt16>(0)
    /// `change` wakes the answers waiting out their latency when the server stops.
    let state = LockedCondition(State())
    /// Tests waiting for a number of requests.
    let arrivals = AsyncWaiters<Int>()
    let answer: @Sendable (Request) -> Answer
    let latency: Duration
    let verify: RequestCheck?
    private let ipv6: Bool
    private let tls: TLS?

    /// `script` gets each request's index (0-based, over the server's life) and the
    /// request; `latency` and `verify` as in `init(ipv6:tls:latency:verify:answer:)`.
    package convenience init(
        latency: Duration = .zero, verify: RequestCheck? = nil,
        script: @escaping @Sendable (Int, Request) -> Answer = { _, _ in .status(200) }
    ) {
        self.init(latency: latency, verify: verify, answer: { script($0.index, $0) })
    }

    /// Listens on 127.0.0.1, or on ::1 with `ipv6`; speaks TLS with `tls`. `answer`
    /// gets each request. Each answer leaves `latency` after its request arrived (sooner
    /// only when the server stops). `verify`, if given, checks each request;
    /// `failedVerification` counts those it refuses (they are still answered).
    package init(
        ipv6: Bool = false, tls: TLS? = nil, latency: Duration = .zero, verify: RequestCheck? = nil,
        answer: @escaping @Sendable (Request) -> Answer
    ) {
        self.ipv6 = ipv6
        self.tls = tls
        self.latency = latency
        self.verify = verify
        self.answer = answer
    }

    /// A server made and started.
    package static func started(
        ipv6: Bool = false, tls: TLS? = nil, latency: Duration = .zero, verify: RequestCheck? = nil,
        _ answer: @escaping @Sendable (Request) -> Answer = { _ in .status(200) }
    ) throws -> LoopbackHTTPServer {
        let server = LoopbackHTTPServer(ipv6: ipv6, tls: tls, latency: latency, verify: verify, answer: answer)
        try server.start()
        return server
    }

    package var port: UInt16 { boundPort.withLock { $0 } }
    package var url: String { "\(tls == nil ? "http" : "https")://\(ipv6 ? "[::1]" : "127.0.0.1"):\(port)/hook" }
    package var requests: [Request] { state.withLock { $0.requests } }
    /// Connections accepted so far.
    package var connectionsAccepted: Int { state.withLock { $0.accepted } }
    /// TLS handshakes completed, and failed, so far.
    package var handshakes: Int { state.withLock { $0.handshakes } }
    package var failedHandshakes: Int { state.withLock { $0.failedHandshakes } }

    /// Waits until the server has received `count` requests in all; `false` at
    /// `deadline` (only a hang reaches the generous one).
    package func waitForRequests(_ count: Int, until deadline: ContinuousClock.Instant = generousDeadline()) async -> Bool {
        await arrivals.wait(
            until: deadline, current: { state.withLock { $0.requests.count >= count } }, for: { $0 >= count })
    }

    /// Whether this machine can listen on ::1.
    package static let ipv6LoopbackAvailable: Bool = {
        let fd = boundSocket(0, ipv6: true)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }()

    deinit {
        let reserved = state.withLock { $0.reserved }
        if reserved >= 0 { close(reserved) }
    }

    package func start() throws {
        if let tls, state.withLock({ $0.tlsContext == nil }) {
            let context = try TLSContext(tls)
            state.withLock { $0.tlsContext = context }
        }
        let reserved = state.withLock { state -> Int32 in
            defer { state.reserved = -1 }
            return state.reserved
        }
        let fd = reserved >= 0 ? reserved : Self.boundSocket(port, ipv6: ipv6)
        guard fd >= 0, listen(fd, 64) == 0 else {
            if fd >= 0 { close(fd) }
            throw ServerError("bind/listen: \(errno)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        // The port sits at the same offset in sockaddr_in and sockaddr_in6.
        let bound = withUnsafeBytes(of: storage) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
        boundPort.withLock { $0 = bound }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(fd)
            throw ServerError("pipe: \(errno)")
        }
        let (wakeRead, wakeWrite) = (ends[0], ends[1])
        state.withLock { state in
            state.listener = fd
            state.wake = wakeWrite
            state.running = true
        }
        Thread { [self] in acceptLoop(fd, wake: wakeRead) }.start()
    }

    /// Closes the listener and shuts every connection down (hanging requests see the
    /// connection drop).
    package func stop() {
        let (listener, wake) = state.change { state -> (Int32, Int32) in
            state.running = false
            state.stops += 1
            // Under the lock: a connection's thread closes its descriptor only after
            // taking it out of the set, so none of these is closed or reused yet.
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
            defer {
                state.listener = -1
                state.wake = -1
            }
            return (state.listener, state.wake)
        }
        if wake >= 0 {
            // Ends the accept loop, which closes the read end.
            var byte: UInt8 = 1
            _ = write(wake, &byte, 1)
            close(wake)
        }
        if listener >= 0 {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
        // Kept for a restart (see `State.reserved`); a port another socket took at once
        // is left to `start`, which then says so.
        let port = port
        guard port != 0 else { return }
        let reserved = Self.boundSocket(port, ipv6: ipv6)
        let previous = state.withLock { state -> Int32 in
            defer { state.reserved = reserved }
            return state.reserved
        }
        if previous >= 0 { close(previous) }
    }

    /// A socket bound to the loopback address at `port` (0: one the system chooses), or
    /// -1 and errno.
    private static func boundSocket(_ port: UInt16, ipv6: Bool) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0 else {
            let error = errno
            close(fd)
            errno = error
            return -1
        }
        return fd
    }

    /// Accepts connections until `stop` writes to `wake`.
    private func acceptLoop(_ listener: Int32, wake: Int32) {
        defer { close(wake) }
        while true {
            var pollers = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&pollers, 2, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, pollers[1].revents == 0 else { return }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            #if canImport(Darwin)
            var yes: Int32 = 1
            setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let accepted = state.withLock { state -> (index: Int, tls: TLSContext?)? in
                guard state.running else { return nil }
                state.connections.insert(connection)
                state.accepted += 1
                return (state.accepted - 1, state.tlsContext)
            }
            guard let accepted else {
                close(connection)
                return
            }
            Thread { [self] in serve(connection, number: accepted.index, tls: accepted.tls) }.start()
        }
    }
}

package struct ServerError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
