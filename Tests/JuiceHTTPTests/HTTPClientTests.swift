import Foundation
import JuiceMakerPluginKit
import JuicePrimitives
import Locking
import JuiceTestSupport
import Testing
import JuiceHTTP

/// The webhook's own HTTP/1.1 client against real loopback servers that answer exactly
/// the bytes a test scripts: body framings, keep-alive, closed connections, malformed
/// answers, a server that never answers, cancellation, IPv6.
///
/// Reuse is asserted by the protocol alone: a `TestClient` keeps a connection for a day
/// (`TestClient.idleLimit`), far beyond any stall of the test process between two
/// requests, and the loopback server never times a connection out, so only the
/// answers' framing and the server's closes decide which connection serves a request.
@Suite(.tags(.unit)) struct HTTPClientTests {
    @Test func contentLengthChunkedAndCloseDelimitedBodiesAreReadPast() async throws {
        let replies: [[UInt8]] = [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".bytes,
            "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: yes\r\n\r\n"
                .bytes,
            "HTTP/1.1 202 Accepted\r\nX-Note: no length\r\n\r\nuntil the connection closes".bytes,
        ]
        let server = try LoopbackHTTPServer.started { request in
            switch request.index {
            case 0, 1: .bytes(replies[request.index])
            case 2: .bytesThenClose(replies[2])
            default: .bytes("HTTP/1.1 204 No Content\r\n\r\n".bytes)
            }
        }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/hook")
        var statuses: [Int] = []
        for _ in 0..<4 { statuses.append(try await client.post().get().status) }
        #expect(statuses == [200, 201, 202, 204])
        // The first three on one connection (the close-delimited body ends it), the last on a new one.
        #expect(server.requests.map(\.connection) == [0, 0, 0, 1])
        #expect(client.connectionsOpened == 2)
    }

    @Test func oneConnectionServesManyRequestsAndTheRequestIsWellFormed() async throws {
        let server = try LoopbackHTTPServer.started { _ in .bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".bytes) }
        defer { server.stop() }
        // The user information becomes Basic authorization, as libcurl sent it: percent-decoded.
        let client = try TestClient("http://us%40er:p%3Aw@127.0.0.1:\(server.port)/hook/a%20b?x=1&y=2#fragment")
        for index in 0..<20 {
            #expect(try await client.post(body: "{\"n\":\(index)}").get().status == 200)
        }
        #expect(server.connectionsAccepted == 1)
        #expect(client.connectionsOpened == 1)
        let request = try #require(server.requests.first)
        #expect(request.line == "POST /hook/a%20b?x=1&y=2 HTTP/1.1")
        #expect(request.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(request.headers["authorization"] == "Basic " + Data("us@er:p:w".utf8).base64EncodedString())
        #expect(request.headers["content-length"] == "7")
        #expect(server.requests.last?.body == Array("{\"n\":19}".utf8))
    }

    @Test func connectionCloseAndHTTP10AreHonoured() async throws {
        let server = try LoopbackHTTPServer.started { request in
            switch request.indexOnConnection {
            case 0 where request.connection == 0: .bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".bytes)
            case 0 where request.connection == 1: .bytes("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n".bytes)
            default: .bytes("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n".bytes)
            }
        }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/")
        for _ in 0..<4 { #expect(try await client.post().get().status == 200) }
        // close → new; HTTP/1.0 without keep-alive → new; HTTP/1.0 keep-alive → kept.
        #expect(server.requests.map(\.connection) == [0, 1, 2, 2])
    }

    @Test func aKeptConnectionTheServerClosedIsReplacedOnceAndOnlyOnce() async throws {
        // The second request on each connection is read and then the connection is
        // closed without a byte of answer: a kept-alive connection the server dropped.
        let server = try LoopbackHTTPServer.started { request in
            request.indexOnConnection == 0 ? .bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".bytes) : .close
        }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/")
        #expect(try await client.post().get().status == 200)
        #expect(try await client.post().get().status == 200)
        #expect(server.requests.map(\.connection) == [0, 0, 1])

        // On a fresh connection the same close is the answer: no second try.
        let closing = try LoopbackHTTPServer.started { _ in .close }
        defer { closing.stop() }
        let fresh = try TestClient("http://127.0.0.1:\(closing.port)/")
        #expect(await fresh.post().failure == .connectionLost)
        #expect(closing.requests.count == 1)

        // A kept connection closed after part of an answer is not retried either.
        let partial = try LoopbackHTTPServer.started { request in
            request.indexOnConnection == 0
                ? .bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".bytes) : .bytesThenClose("HTTP/1.1 20".bytes)
        }
        defer { partial.stop() }
        let client2 = try TestClient("http://127.0.0.1:\(partial.port)/")
        #expect(try await client2.post().get().status == 200)
        #expect(await client2.post().failure == .connectionLost)
        #expect(partial.requests.count == 2)
    }

    @Test func aConnectionKeptPastTheIdleLimitIsReplaced() async throws {
        let server = try LoopbackHTTPServer.started { _ in .bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".bytes) }
        defer { server.stop() }
        // A zero limit: every kept connection is past it by the next request, however fast.
        let client = try TestClient("http://127.0.0.1:\(server.port)/", idleLimit: .zero)
        for _ in 0..<3 { #expect(try await client.post().get().status == 200) }
        #expect(server.requests.map(\.connection) == [0, 1, 2])
        #expect(client.connectionsOpened == 3)
        #expect(HTTPClient(target: client.target).idleLimit == HTTPClient.idleLimit, "the product's client keeps its own limit")
    }

    @Test func interimResponsesAreSkipped() async throws {
        let server = try LoopbackHTTPServer.started { _ in
            .bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n".bytes)
        }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/")
        #expect(try await client.post().get().status == 410)
        #expect(try await client.post().get().status == 410)
        #expect(server.connectionsAccepted == 1)
    }

    @Test(arguments: [
        ("garbage\r\n\r\n", HTTPViolation.notHTTP1),
        ("\u{16}\u{03}\u{01}\u{00}\u{2a}\r\n\r\n", .notHTTP1),
        ("HTTP/2 200\r\n\r\n", .notHTTP1),
        ("HTTP/1.1 2OO OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n", .foldedField),
        ("HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n", .malformedField),
        ("HTTP/1.1 200 OK\r\nX-A: 1\rX-B: 2\r\n\r\n", .bareCarriageReturn),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", .badContentLength),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .badContentLength),
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", .unexpectedSwitchingProtocols),
    ])
    func malformedAnswersAreRetryableFailures(reply: String, violation: HTTPViolation) async throws {
        let server = try LoopbackHTTPServer.started { _ in .bytes(reply.bytes) }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/")
        let failure = await client.post().failure
        #expect(failure == .malformedResponse(violation))
        #expect(failure?.message.english.hasPrefix("malformed response: ") == true)
    }

    @Test func anOversizedHeaderSectionIsRefusedWithoutWaitingForItsEnd() async throws {
        // 70 KiB of header field and no blank line; the connection then stays open.
        let head = "HTTP/1.1 200 OK\r\nX-Fill: " + String(repeating: "x", count: 70 * 1024)
        let server = try LoopbackHTTPServer.started { _ in .bytes(head.bytes) }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/")
        let (result, usage) = await client.postMeasured(timeout: 60)
        #expect(result.failure == .malformedResponse(.headTooLarge))
        // Bounded, not a speed assertion: only waiting for the 60 s deadline fails. Timed
        // on the client's own thread, so a stall of the test's task does not count.
        #expect(usage.wall < 60, "refused long before the header section could end")
    }

    @Test func aRefusedConnectionAndAnUnknownHostAreSaidSo() async throws {
        let server = try LoopbackHTTPServer.started { _ in .close }
        let port = server.port
        server.stop()
        let refused = try TestClient("http://127.0.0.1:\(port)/")
        #expect(await refused.post().failure == .connectionRefused)
        // `.invalid` never resolves (RFC 6761).
        let nowhere = try TestClient("http://no-such-host.invalid/")
        let unknown = await nowhere.post().failure
        guard case .hostNotFound = unknown else {
            Issue.record("expected host not found, got \(String(describing: unknown))")
            return
        }
        #expect(unknown?.message.english.hasPrefix("host not found") == true)
    }

    /// The wait costs nothing: the thread that waits on an endpoint that never answers
    /// sleeps in one `poll` until the deadline. Its own CPU time (`RUSAGE_THREAD`, so
    /// tests running beside it do not count) and wake-ups are measured; neither is a
    /// timing assertion on the wall clock.
    @Test func aHungEndpointEndsAtTheTimeoutAndTheWaitUsesNoCPU() async throws {
        let server = try LoopbackHTTPServer.started { _ in .hang }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/")
        let timeout = 2.0
        let (result, usage) = await client.postMeasured(timeout: timeout)
        #expect(result.failure == .timedOut)
        #expect(result.failure?.message.english == "no answer within the timeout")
        #expect(usage.wall >= timeout)
        #expect(usage.wall < timeout + 10, "a deadline-bounded wait took \(usage.wall) s")
        let percent = usage.cpu / usage.wall * 100
        print("HTTP client waiting \(usage.wall) s on a hung endpoint: \(usage.cpu * 1000) ms CPU (\(percent)%), \(usage.wakeUps) wake-ups")
        #expect(percent < 1, "the waiting thread used \(percent)% of a core")
        #expect(usage.wakeUps < 50, "the waiting thread woke \(usage.wakeUps) times: something polls")
    }

    @Test func cancellingAHungRequestEndsItAtOnce() async throws {
        let server = try LoopbackHTTPServer.started { _ in .hang }
        defer { server.stop() }
        let client = try TestClient("http://127.0.0.1:\(server.port)/")
        let number = client.cancellation.begin()
        async let measured = client.postMeasured(timeout: 60, number: number)
        #expect(await server.waitForRequests(1))
        let cancelled = ContinuousClock.now
        client.cancellation.cancel(number)
        let (result, usage) = await measured
        #expect(result.failure == .cancelled)
        // From the cancel to the end of the request on the client's own thread: a stall
        // of the test's task before it resumes does not count.
        let took = usage.ended - cancelled
        print("HTTP client: cancel → request ended in \(took)")
        // Bounded, not a speed assertion: only a cancel that waits for the 60 s deadline fails.
        #expect(took < .seconds(20))
        // A later request is not touched by the earlier cancel.
        let answering = try LoopbackHTTPServer.started { _ in .bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".bytes) }
        defer { answering.stop() }
        let next = try TestClient("http://127.0.0.1:\(answering.port)/", cancellation: client.cancellation)
        #expect(try await next.post().get().status == 200)
    }

    @Test(.enabled(if: LoopbackHTTPServer.ipv6LoopbackAvailable, "this machine cannot listen on ::1"))
    func ipv6Loopback() async throws {
        let server = try LoopbackHTTPServer.started(ipv6: true) { _ in .bytes("HTTP/1.1 204 No Content\r\n\r\n".bytes) }
        defer { server.stop() }
        let client = try TestClient("http://[::1]:\(server.port)/hook")
        #expect(try await client.post().get().status == 204)
        #expect(server.requests.first?.headers["host"] == "[::1]:\(server.port)")
    }
}

/// The chunked-body reader and the head parser on bytes alone, split at every boundary.
@Suite(.tags(.unit)) struct HTTPParsingTests {
    @Test func chunkedBodiesEndWhereTheyEndHoweverTheBytesArrive() throws {
        let body = "4\r\nWiki\r\n5\r\npedia\r\nE; ext=\"x\"\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: 1\r\n\r\n".bytes
        let following = "HTTP/1.1".bytes
        for split in 0...body.count {
            var reader = HTTPChunkedBody()
            let all = body + following
            var used = try reader.consume(all[..<split])
            if !reader.isComplete { used += try reader.consume(all[split...]) }
            #expect(reader.isComplete)
            #expect(used == body.count)
            #expect(reader.dataBytes == 23)
        }
    }

    @Test(arguments: ["zz\r\n", "-1\r\n", "1234567890abcdef0\r\n", "4\r\nWikiXX\r\n", "4 x\r\nWiki\r\n", "4\rx\r\n"])
    func malformedChunksAreRefused(_ text: String) {
        var reader = HTTPChunkedBody()
        #expect(throws: (any Error).self) { _ = try reader.consume(text.bytes[...]) }
    }

    @Test func aHeadIsFoundHoweverTheBytesArrive() throws {
        let head = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 120\r\nConnection: keep-alive, Close\r\nX-Empty:\r\n\r\n".bytes
        for split in 1..<head.count {
            var scanned = 0
            #expect(try HTTPResponseHead.parse(head[..<split], scanned: &scanned) == nil)
            let (parsed, length) = try #require(try HTTPResponseHead.parse(head[...], scanned: &scanned))
            #expect(length == head.count)
            #expect(parsed.status == 503)
            #expect(parsed.value(of: "retry-after") == "120")
            #expect(parsed.value(of: "x-empty") == "")
            #expect(!parsed.allowsReuse)
        }
        var scanned = 0
        let bareLF = try #require(try HTTPResponseHead.parse("HTTP/1.0 200\nContent-Length: 3\n\nabc".bytes[...], scanned: &scanned))
        #expect(bareLF.0.status == 200 && !bareLF.0.isHTTP11 && bareLF.1 == 32)
        #expect(try bareLF.0.framing() == .length(3))
    }

    @Test func framingFollowsRFC9112() throws {
        func head(_ text: String) throws -> HTTPResponseHead {
            var scanned = 0
            return try #require(try HTTPResponseHead.parse((text + "\r\n").bytes[...], scanned: &scanned)).0
        }
        #expect(try head("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n").framing() == .none)
        #expect(try head("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 9\r\n").framing() == .chunked)
        #expect(try !head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n").allowsReuse)
        #expect(try head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n").framing() == .untilClose)
        #expect(try head("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n").framing() == .untilClose)
        #expect(try head("HTTP/1.1 200 OK\r\nContent-Length: 7\r\ncontent-length: 7\r\n").framing() == .length(7))
        #expect(try head("HTTP/1.1 200 OK\r\n").framing() == .untilClose)
    }

    @Test func targetsComeApartAsLibcurlTookThem() throws {
        let plain = try HTTPTarget(url: #require(ParsedURL("http://Example.com/")))
        #expect(plain.port == 80 && plain.hostHeader == "example.com" && plain.requestTarget == "/" && plain.authorization == nil)
        let secure = try HTTPTarget(url: #require(ParsedURL("https://example.com:8443?q=1")))
        #expect(secure.scheme == .https && secure.port == 8443 && secure.hostHeader == "example.com:8443" && secure.requestTarget == "/?q=1")
        let userOnly = try HTTPTarget(url: #require(ParsedURL("https://user@example.com:443/x")))
        #expect(userOnly.hostHeader == "example.com" && userOnly.authorization == "Basic " + Data("user:".utf8).base64EncodedString())
        let v6 = try HTTPTarget(url: #require(ParsedURL("http://[::1]:8080/h")))
        #expect(v6.host == "::1" && v6.hostIsAddress && v6.hostHeader == "[::1]:8080")
        #expect(try HTTPTarget(url: #require(ParsedURL("http://10.0.0.1/"))).hostIsAddress)
        #expect(throws: HTTPTargetError.self) { try HTTPTarget(url: #require(ParsedURL("ftp://example.com/"))) }
        if let zoned = ParsedURL("http://[fe80::1%25eth0]/") {
            #expect(throws: HTTPTargetError.self) { try HTTPTarget(url: zoned) }
        }
    }
}

/// An `HTTPClient` driven from a thread of its own (never the cooperative pool),
/// awaited by the test.
final class TestClient: Sendable {
    /// The kept connection's idle limit unless a test gives one: a day, far beyond any
    /// stall of the test process (a starved cooperative pool on a loaded machine has
    /// held a test's task for two minutes between two requests). Reuse then depends on
    /// the protocol only, never on how fast the machine is.
    static let idleLimit = Duration.seconds(86_400)

    let cancellation: HTTPCancellation
    let target: HTTPTarget
    private let client: Locked<HTTPClient>

    init(
        _ url: String, trusting certificates: String? = nil, cancellation: HTTPCancellation = HTTPCancellation(),
        idleLimit: Duration = TestClient.idleLimit
    ) throws {
        guard let parsed = ParsedURL(url) else { throw ServerError("not a URL: \(url)") }
        target = try HTTPTarget(url: parsed)
        client = Locked(HTTPClient(target: target, trustedCertificatesFile: certificates, idleLimit: idleLimit))
        self.cancellation = cancellation
    }

    var connectionsOpened: Int { client.withLock { $0.connectionsOpened } }

    /// Closes the kept-alive connection.
    func close() { client.withLock { $0.close() } }

    func post(body: String = "{}", timeout: Double = 10, number: UInt64? = nil) async -> Result<HTTPResponseHead, HTTPClientError> {
        await postMeasured(body: body, timeout: timeout, number: number).0
    }

    struct Usage: Sendable {
        var wall = 0.0
        var cpu = 0.0
        var wakeUps = 0
        /// When the request ended, on the thread that made it.
        var ended = ContinuousClock.now
    }

    /// The result, with the wall time, the CPU time and the voluntary context switches
    /// of the thread that made the request, and when it ended there.
    func postMeasured(body: String = "{}", timeout: Double = 10, number: UInt64? = nil) async -> (Result<HTTPResponseHead, HTTPClientError>, Usage) {
        let request = HTTPRequest(fields: [("Content-Type", "application/json")], body: Array(body.utf8))
        let number = number ?? cancellation.begin()
        return await withCheckedContinuation { continuation in
            Thread { [self] in
                let before = Self.threadUsage()
                let started = ContinuousClock.now
                let result = client.withLock { client in
                    Result { () throws(HTTPClientError) in
                        try client.send(request, until: .now + .seconds(timeout), cancellation: cancellation, number: number)
                    }
                }
                let after = Self.threadUsage()
                let ended = ContinuousClock.now
                let wall = ended - started
                let usage = Usage(
                    wall: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18,
                    cpu: after.cpu - before.cpu, wakeUps: after.wakeUps - before.wakeUps, ended: ended)
                continuation.resume(returning: (result, usage))
            }.start()
        }
    }

    /// `getrusage(RUSAGE_THREAD)`: this thread's user + system seconds and voluntary switches.
    private static func threadUsage() -> (cpu: Double, wakeUps: Int) {
        var usage = rusage()
        getrusage(1, &usage)  // RUSAGE_THREAD, which Glibc's module imports as an enum getrusage does not take
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return (cpu, usage.ru_nvcsw)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
