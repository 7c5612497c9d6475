import Foundation

/// A request as the client sends it: `method` to the target with these header fields
/// and this body. `Host`, `Content-Length` and (from the URL) `Authorization` are added.
package struct HTTPRequest: Sendable {
    package var method: String
    package var fields: [(name: String, value: String)]
    package var body: [UInt8]

    package init(method: String = "POST", fields: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.fields = fields
        self.body = body
    }
}

/// A small HTTP/1.1 client for one endpoint, over POSIX sockets and `poll(2)`, with
/// TLS from the system's OpenSSL (`TLSSession`). Blocking: it runs on the caller's
/// thread, which must not be one of Swift's cooperative pool. Not thread-safe: one
/// request at a time.
///
/// - One deadline bounds each request whole (name lookup, connecting, the TLS
///   handshake, writing, reading the answer); every wait is one `poll` with the time
///   left and the cancellation pipe, so a wait costs no CPU and a cancel ends it at once.
/// - The answer is the final response's status line and header fields (1xx interim
///   responses are skipped). Its body is read and thrown away — at most
///   `maximumDiscardedBody` bytes, within the same deadline — only to keep the
///   connection: a longer body, one that breaks its framing, stalls or ends with the
///   connection, only costs the connection, never the answer.
/// - Keep-alive: one connection is kept between requests when the server allows it
///   (HTTP/1.1 without `Connection: close`, a body framed by length or chunks, nothing
///   after it) and it was idle less than `idleLimit`. A kept connection found closed
///   before any byte of the answer arrived (the server timed it out meanwhile) is
///   replaced and the request sent once more; after that, a failure is the answer.
/// - No proxy: `http_proxy`, `https_proxy` and `no_proxy` are not read.
package final class HTTPClient {
    package static let maximumInterimResponses = 16
    package static let maximumDiscardedBody = 1 << 20
    /// A kept connection idle longer than this is closed rather than used (a server or
    /// a NAT between may have dropped it without a word).
    package static let idleLimit = Duration.seconds(60)

    package let target: HTTPTarget
    private let trustedCertificatesFile: String?
    private var tlsContext: TLSContext?
    /// The kept-alive connection between requests.
    private var idle: HTTPConnection?
    /// Connections opened so far.
    package private(set) var connectionsOpened = 0

    /// A client for `target`. `trustedCertificatesFile` (tests only: not reachable
    /// from the config) replaces the system's trust store with one PEM file.
    package init(target: HTTPTarget, trustedCertificatesFile: String? = nil) {
        self.target = target
        self.trustedCertificatesFile = trustedCertificatesFile
    }

    deinit { idle?.close() }

    /// Sends `request` and returns the final response's head, or throws why there is
    /// none by `deadline`. `cancellation.cancel(number)` ends it at once.
    package func send(
        _ request: HTTPRequest, until deadline: ContinuousClock.Instant, cancellation: HTTPCancellation, number: UInt64
    ) throws(HTTPClientError) -> HTTPResponseHead {
        let wait = HTTPWait(deadline: deadline, cancellation: cancellation, request: number)
        try wait.check()
        let message = try Self.serialize(request, for: target)
        if let kept = takeIdleConnection() {
            do {
                return try exchange(message, on: kept, wait: wait)
            } catch {
                // Closed by the server before it read the request: try a new connection, once.
                guard error == .connectionLost, kept.receivedInExchange == 0 else { throw error }
            }
        }
        return try exchange(message, on: try open(wait), wait: wait)
    }

    /// Closes the kept-alive connection, if any.
    package func close() {
        idle?.close()
        idle = nil
    }

    // MARK: Connections

    private func takeIdleConnection() -> HTTPConnection? {
        guard let connection = idle else { return nil }
        idle = nil
        if connection.idleSince.duration(to: .now) < Self.idleLimit, HTTPSocket.isIdleAndOpen(connection.descriptor) {
            return connection
        }
        connection.close()
        return nil
    }

    private func open(_ wait: HTTPWait) throws(HTTPClientError) -> HTTPConnection {
        let addresses = try HTTPSocket.addresses(of: target.host, port: target.port, isNumeric: target.hostIsAddress, wait: wait)
        let connection = HTTPConnection(descriptor: try HTTPSocket.connect(to: addresses, wait: wait))
        connectionsOpened += 1
        if target.scheme == .https {
            do {
                let context: TLSContext
                if let existing = tlsContext {
                    context = existing
                } else {
                    context = try TLSContext(trustedCertificatesFile: trustedCertificatesFile)
                    tlsContext = context
                }
                try connection.startTLS(context: context, host: target.host, hostIsAddress: target.hostIsAddress, wait: wait)
            } catch {
                connection.close()
                throw error
            }
        }
        return connection
    }

    // MARK: One exchange

    /// Writes `message`, reads the answer's head, then its body (discarded); keeps the
    /// connection if it can serve another request.
    private func exchange(_ message: [UInt8], on connection: HTTPConnection, wait: HTTPWait) throws(HTTPClientError) -> HTTPResponseHead {
        connection.receivedInExchange = 0
        let head: HTTPResponseHead
        let framing: HTTPResponseHead.Framing
        do {
            try connection.write(message, wait: wait)
            (head, framing) = try readHead(connection, wait: wait)
        } catch {
            connection.close()
            throw error
        }
        if discardBody(framing, on: connection, wait: wait), head.allowsReuse, connection.inbox.isEmpty {
            connection.idleSince = .now
            idle = connection
        } else {
            connection.close()
        }
        return head
    }

    /// The final response's head and how its body is framed; interim 1xx responses
    /// are skipped.
    private func readHead(_ connection: HTTPConnection, wait: HTTPWait) throws(HTTPClientError) -> (HTTPResponseHead, HTTPResponseHead.Framing) {
        var interim = 0
        while true {
            var scanned = 0
            var parsed: (HTTPResponseHead, Int)?
            while true {
                do {
                    parsed = try HTTPResponseHead.parse(connection.inbox[...], scanned: &scanned)
                } catch {
                    throw .malformedResponse(error)
                }
                if parsed != nil { break }
                if try connection.fill(wait: wait) == 0 { throw .connectionLost }
            }
            guard let (head, length) = parsed else { continue }
            connection.inbox.removeFirst(length)
            if head.status >= 200 {
                do {
                    return (head, try head.framing())
                } catch {
                    throw .malformedResponse(error)
                }
            }
            if head.status == 101 { throw .malformedResponse(.unexpectedSwitchingProtocols) }
            interim += 1
            if interim > Self.maximumInterimResponses { throw .malformedResponse(.tooManyInterimResponses) }
        }
    }

    /// Reads and throws away the body; whether it ended cleanly within the bounds,
    /// so the connection may serve another request.
    private func discardBody(_ framing: HTTPResponseHead.Framing, on connection: HTTPConnection, wait: HTTPWait) -> Bool {
        switch framing {
        case .none:
            return true
        case .untilClose:
            return false
        case .length(let length):
            guard length <= Self.maximumDiscardedBody else { return false }
            var left = length
            while true {
                let take = min(left, connection.inbox.count)
                connection.inbox.removeFirst(take)
                left -= take
                if left == 0 { return true }
                guard let count = try? connection.fill(wait: wait), count > 0 else { return false }
            }
        case .chunked:
            var body = HTTPChunkedBody()
            while true {
                guard let used = try? body.consume(connection.inbox[...]) else { return false }
                connection.inbox.removeFirst(used)
                if body.isComplete { return true }
                guard body.dataBytes <= Self.maximumDiscardedBody,
                      let count = try? connection.fill(wait: wait), count > 0
                else { return false }
            }
        }
    }

    /// The request's bytes: request line, header section, body. A field that could
    /// break the header section (a line break in a value, a bad name) is refused.
    static func serialize(_ request: HTTPRequest, for target: HTTPTarget) throws(HTTPClientError) -> [UInt8] {
        var head = "\(request.method) \(target.requestTarget) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        if let authorization = target.authorization { head += "Authorization: \(authorization)\r\n" }
        for (name, value) in request.fields {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPResponseHead.isTokenByte),
                  value.utf8.allSatisfy(HTTPResponseHead.isFieldValueByte)
            else { throw .system("the header field \(name) cannot be sent: it holds a line break or control character") }
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(request.body.count)\r\n\r\n"
        var bytes = Array(head.utf8)
        bytes += request.body
        return bytes
    }
}

/// One connection to the endpoint: a socket, TLS over it for https, and the bytes
/// read but not yet parsed. Closed once, by `close` or when released.
final class HTTPConnection {
    let descriptor: Int32
    private var tls: TLSSession?
    /// Read, not yet consumed.
    var inbox: [UInt8] = []
    /// Bytes read since the current exchange began.
    var receivedInExchange = 0
    var idleSince = ContinuousClock.now
    private var closed = false
    private var scratch = [UInt8](repeating: 0, count: 16_384)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    func startTLS(context: TLSContext, host: String, hostIsAddress: Bool, wait: HTTPWait) throws(HTTPClientError) {
        let session = try TLSSession(context: context, descriptor: descriptor, host: host, hostIsAddress: hostIsAddress)
        tls = session
        try session.handshake(wait)
    }

    func write(_ bytes: [UInt8], wait: HTTPWait) throws(HTTPClientError) {
        let outcome = bytes.withUnsafeBytes { buffer in
            Result { () throws(HTTPClientError) in
                if let tls {
                    try tls.send(buffer, wait: wait)
                } else {
                    try HTTPSocket.send(descriptor, buffer, wait: wait)
                }
            }
        }
        try outcome.get()
    }

    /// Waits for bytes and appends them to `inbox`: how many, 0 at the end of the stream.
    func fill(wait: HTTPWait) throws(HTTPClientError) -> Int {
        let tls = tls
        let descriptor = descriptor
        let count = try scratch.withUnsafeMutableBytes { buffer in
            Result { () throws(HTTPClientError) in
                if let tls { return try tls.receive(into: buffer, wait: wait) }
                return try HTTPSocket.receive(descriptor, into: buffer, wait: wait)
            }
        }.get()
        inbox.append(contentsOf: scratch[..<count])
        receivedInExchange += count
        return count
    }

    func close() {
        guard !closed else { return }
        closed = true
        tls?.close()
        Foundation.close(descriptor)
    }
}
