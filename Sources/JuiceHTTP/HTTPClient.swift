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
///   after it) and it was idle less than its idle limit. A kept connection found closed
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
    /// This client's idle limit for its kept connection (`HTTPClient.idleLimit` unless
    /// given).
    package let idleLimit: Duration
    private let trustedCertificatesFile: String?
    private var tlsContext: TLSContext?
    /// The kept-alive connection between requests.
    private var idle: HTTPConnection?
    /// Connections opened so far.
    package private(set) var connectionsOpened = 0

    /// A client for `target`. `trustedCertificatesFile` (tests only: not reachable
    /// from the config) replaces the system's trust store with one PEM file.
    /// `idleLimit` (tests only: the config has none) replaces `HTTPClient.idleLimit`,
    /// so a test of reuse does not depend on how long its process was stalled between
    /// two requests.
    package init(target: HTTPTarget, trustedCertificatesFile: String? = nil, idleLimit: Duration = HTTPClient.idleLimit) {
        self.target = target
        self.trustedCertificatesFile = trustedCertificatesFile
        self.idleLimit = idleLimit
    }

    deinit { idle?.close() }

    /// Sends `request` and returns the final response's head, or throws why there is
    /// none by `deadline`. `cancellation.cancel(number)` ends it at once.
    package func send(
        _ request: HTTPRequest, until deadline: ContinuousClock.Instant, cancellation: HTTPCancellation, number: UInt64
    ) throws(HTTPClientError) -> HTTPResponseHead {
        let wait = HTTPWait(deadline: deadline, cancellation: cancellation, request: number)
        try wait.check()
        let message = try request.serialized(for: target)
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
        if connection.idleSince.duration(to: .now) < idleLimit, HTTPSocket.isIdleAndOpen(connection.descriptor) {
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
}
