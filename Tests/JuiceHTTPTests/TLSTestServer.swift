import CTLS
import Foundation
import JuiceTestSupport
import Locking

/// A TLS server on 127.0.0.1 for the HTTP client's tests, through the system's
/// libssl: one connection at a time, each request answered `200` with a short body
/// (keep-alive). Counts completed and failed handshakes.
final class TLSTestServer: Sendable {
    private struct State {
        var handshakes = 0
        var failedHandshakes = 0
        var requests = 0
        var connection: Int32 = -1
        var running = true
    }

    let port: UInt16
    private let listener: Int32
    private let state = Locked(State())

    init(certificate: String, key: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw ServerError("bind/listen: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        Thread { [self] in serve(certificate: certificate, key: key) }.start()
    }

    var handshakes: Int { state.withLock { $0.handshakes } }
    var failedHandshakes: Int { state.withLock { $0.failedHandshakes } }
    var requests: Int { state.withLock { $0.requests } }

    func stop() {
        state.withLock { state in
            state.running = false
            if state.connection >= 0 { shutdown(state.connection, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(certificate: String, key: String) {
        // libssl writes with write(2): a client that hung up must not kill the test
        // process with SIGPIPE. Blocked on this thread only; it ends with the thread.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        guard let context = SSL_CTX_new(TLS_server_method()) else { return }
        defer { SSL_CTX_free(context) }
        guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1,
            SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1
        else { return }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            guard
                state.withLock({ state -> Bool in
                    state.connection = connection
                    return state.running
                })
            else {
                close(connection)
                return
            }
            if let ssl = SSL_new(context) {
                SSL_set_fd(ssl, connection)
                if SSL_accept(ssl) == 1 {
                    state.withLock { $0.handshakes += 1 }
                    answer(ssl)
                    SSL_shutdown(ssl)
                } else {
                    state.withLock { $0.failedHandshakes += 1 }
                }
                SSL_free(ssl)
            }
            state.withLock { state in
                state.connection = -1
                close(connection)
            }
        }
    }

    /// Answers each request on the connection until the client closes it.
    private func answer(_ ssl: OpaquePointer) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        while true {
            // Head, then a Content-Length body.
            var end: Int?
            while end == nil {
                if buffer.count >= 4 {
                    end = (0...(buffer.count - 4)).first { buffer[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }
                }
                if end != nil { break }
                let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                guard count > 0 else { return }
                buffer += chunk[..<Int(count)]
            }
            guard let end else { return }
            let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
            let length =
                head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < end + 4 + length {
                let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                guard count > 0 else { return }
                buffer += chunk[..<Int(count)]
            }
            buffer.removeFirst(end + 4 + length)
            state.withLock { $0.requests += 1 }
            guard reply.withUnsafeBytes({ SSL_write(ssl, $0.baseAddress, Int32($0.count)) }) > 0 else { return }
        }
    }
}
