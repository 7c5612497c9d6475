import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// A small HTTP/1.1 server on 127.0.0.1, for tests: records every request and
/// answers what the test scripts. Keep-alive, `Content-Length` bodies only, one thread
/// per connection (connections are answered concurrently).
/// Nothing in it polls: its threads wait on sockets, a wake-up pipe and its state's
/// condition, and tests wait for requests with `waitForRequests`. With `latency`, each
/// answer leaves that long after its request arrived (a wait on the state's condition,
/// which `stop` ends), as an endpoint across the internet would; with `verify`, each
/// request is checked (its signature) and those that fail are counted.
package final class LoopbackHTTPServer: Sendable {
    package struct Request: Sendable {
        package let method: String
        package let path: String
        /// Header names lowercased.
        package let headers: [String: String]
        package let body: [UInt8]
        /// When it was read whole.
        package let arrival: ContinuousClock.Instant
        /// The connection it came on (its order of acceptance, from 0).
        package let connection: Int
        package var text: String { String(decoding: body, as: UTF8.self) }
        /// The journal sequence of the CloudEvent in the body, if it is one.
        package var sequence: Int64? { try? CloudEventFormat.decode(text).sequence }
    }

    package enum Answer: Sendable {
        case status(Int, headers: [(String, String)] = [])
        /// Never answers; the connection stays open until the server stops.
        case hang
    }

    private struct State {
        var listener: Int32 = -1
        /// The write end of the accept loop's wake-up pipe.
        var wake: Int32 = -1
        var connections: Set<Int32> = []
        var requests: [Request] = []
        var running = false
        var accepted = 0
        var failedVerification = 0
        /// While stopped: a socket bound to the port and not listening, so the port stays
        /// this server's (a connection to it is refused, as to a closed port) and no
        /// other socket of a test running beside it takes it before the next `start`.
        var reserved: Int32 = -1
    }

    /// The port, chosen by the system at the first `start` and kept across restarts.
    private let boundPort = Locked<UInt16>(0)
    /// `change` wakes a hanging answer when its connection is closed.
    private let state = LockedCondition(State())
    /// Tests waiting for a number of requests.
    private let arrivals = AsyncWaiters<Int>()
    private let script: @Sendable (Int, Request) -> Answer
    private let latency: Duration
    private let verify: RequestCheck?

    /// A check of each request (a value, not a closure parameter, so a trailing
    /// closure still means the script).
    package struct RequestCheck: Sendable {
        let accepts: @Sendable (Request) -> Bool
        package init(_ accepts: @escaping @Sendable (Request) -> Bool) { self.accepts = accepts }

        /// Accepts a request whose Standard Webhooks headers (`webhook-id`,
        /// `webhook-timestamp`, `webhook-signature`) are present and pass `verify`
        /// (`WebhookSignature.verify`).
        package static func standardWebhooks(
            _ verify: @escaping @Sendable (_ header: String, _ id: String, _ timestamp: Int64, _ body: [UInt8]) -> Bool
        ) -> RequestCheck {
            RequestCheck { request in
                guard let id = request.headers["webhook-id"], let header = request.headers["webhook-signature"],
                    let timestamp = request.headers["webhook-timestamp"].flatMap({ Int64($0) })
                else { return false }
                return verify(header, id, timestamp, request.body)
            }
        }
    }

    /// `script` gets each request's index (0-based, over the server's life) and the
    /// request. Each answer leaves `latency` after its request arrived. `verify`, if
    /// given, checks each request; `failedVerification` counts those it refuses (they
    /// are still answered as scripted).
    package init(
        latency: Duration = .zero, verify: RequestCheck? = nil,
        script: @escaping @Sendable (Int, Request) -> Answer = { _, _ in .status(200) }
    ) {
        self.latency = latency
        self.verify = verify
        self.script = script
    }

    /// A server with `latency` that counts the requests whose Standard Webhooks
    /// signature `verify` (`WebhookSignature.verify`) refuses.
    package static func signed(
        latency: Duration, verify: @escaping @Sendable (_ header: String, _ id: String, _ timestamp: Int64, _ body: [UInt8]) -> Bool,
        script: @escaping @Sendable (Int, Request) -> Answer
    ) -> LoopbackHTTPServer {
        LoopbackHTTPServer(latency: latency, verify: .standardWebhooks(verify), script: script)
    }

    /// Requests `verify` refused.
    package var failedVerification: Int { state.withLock { $0.failedVerification } }

    /// Connections accepted so far.
    package var connectionsAccepted: Int { state.withLock { $0.accepted } }

    package var port: UInt16 { boundPort.withLock { $0 } }
    package var url: String { "http://127.0.0.1:\(port)/hook" }
    package var requests: [Request] { state.withLock { $0.requests } }

    /// Waits until the server has received `count` requests in all; `false` at
    /// `deadline` (only a hang reaches the generous one).
    package func waitForRequests(_ count: Int, until deadline: ContinuousClock.Instant = generousDeadline()) async -> Bool {
        await arrivals.wait(
            until: deadline, current: { state.withLock { $0.requests.count >= count } }, for: { $0 >= count })
    }

    deinit {
        let reserved = state.withLock { $0.reserved }
        if reserved >= 0 { close(reserved) }
    }

    /// A socket bound to 127.0.0.1 at `port` (0: one the system chooses), or -1 and errno.
    private static func boundSocket(_ port: UInt16) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let error = errno
            close(fd)
            errno = error
            return -1
        }
        return fd
    }

    package func start() throws {
        let reserved = state.change { state -> Int32 in
            defer { state.reserved = -1 }
            return state.reserved
        }
        let fd = reserved >= 0 ? reserved : Self.boundSocket(port)
        guard fd >= 0, listen(fd, 64) == 0 else {
            if fd >= 0 { close(fd) }
            throw ServerError("bind/listen: \(errno)")
        }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        boundPort.withLock { $0 = UInt16(bigEndian: address.sin_port) }
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

    /// Closes the listener and every connection (hanging requests see the connection drop).
    package func stop() {
        let (fds, wake) = state.change { state -> ([Int32], Int32) in
            state.running = false
            defer {
                state.listener = -1
                state.wake = -1
                state.connections = []
            }
            return ([state.listener] + Array(state.connections), state.wake)
        }
        if wake >= 0 {
            // Ends the accept loop, which closes the read end.
            var byte: UInt8 = 1
            _ = write(wake, &byte, 1)
            close(wake)
        }
        for fd in fds where fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
        // Kept for a restart (see `State.reserved`); a port another socket took at once
        // is left to `start`, which then says so.
        let port = port
        guard port != 0 else { return }
        let reserved = Self.boundSocket(port)
        let previous = state.change { state -> Int32 in
            defer { state.reserved = reserved }
            return state.reserved
        }
        if previous >= 0 { close(previous) }
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
            let number = state.withLock { state -> Int? in
                guard state.running else { return nil }
                state.connections.insert(connection)
                state.accepted += 1
                return state.accepted - 1
            }
            guard let number else {
                close(connection)
                return
            }
            Thread { [self] in serve(connection, number: number) }.start()
        }
    }

    private func serve(_ fd: Int32, number: Int) {
        var buffer: [UInt8] = []
        defer {
            let owned = state.withLock { $0.connections.remove(fd) != nil }
            if owned { close(fd) }
        }
        while true {
            guard let headerEnd = readUntilHeaderEnd(fd, &buffer) else { return }
            let head = String(decoding: buffer[..<headerEnd], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            buffer.removeFirst(headerEnd + 4)
            if headers["expect"]?.lowercased() == "100-continue" { reply(fd, "HTTP/1.1 100 Continue\r\n\r\n") }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while buffer.count < length {
                guard readMore(fd, &buffer) else { return }
            }
            let body = Array(buffer.prefix(length))
            buffer.removeFirst(length)
            let request = Request(
                method: requestLine.first.map(String.init) ?? "", path: requestLine.dropFirst().first.map(String.init) ?? "",
                headers: headers, body: body, arrival: .now, connection: number)
            let refused = verify.map { !$0.accepts(request) } ?? false
            let index = state.withLock { state in
                state.requests.append(request)
                if refused { state.failedVerification += 1 }
                arrivals.resumeSatisfied(by: state.requests.count)
                return state.requests.count - 1
            }
            let answer = script(index, request)
            if latency > .zero {
                // The endpoint's own time: ends early only when the server stops.
                _ = state.wait(until: request.arrival + latency) { !$0.connections.contains(fd) }
            }
            switch answer {
            case .hang:
                _ = state.wait(until: nil) { !$0.connections.contains(fd) }
                return
            case let .status(code, extra):
                var response = "HTTP/1.1 \(code) Scripted\r\nContent-Length: 0\r\n"
                for (name, value) in extra { response += "\(name): \(value)\r\n" }
                reply(fd, response + "\r\n")
            }
        }
    }

    private func readUntilHeaderEnd(_ fd: Int32, _ buffer: inout [UInt8]) -> Int? {
        let marker: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4) where buffer[index..<index + 4].elementsEqual(marker) { return index }
            }
            guard readMore(fd, &buffer) else { return nil }
        }
    }

    private func readMore(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }

    /// No SIGPIPE when the client has gone: a flag on Linux, a socket option
    /// (`SO_NOSIGPIPE`, set at accept) on Darwin.
    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    private func reply(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Self.sendFlags) }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}

package struct ServerError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
