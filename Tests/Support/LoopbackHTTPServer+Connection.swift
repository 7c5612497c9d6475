import CTLS
import Foundation

/// A server's libssl context: its certificate and key, loaded once.
// @unchecked Sendable: the SSL_CTX is set up in `init` and only read afterwards
// (SSL_new takes a reference to it), which OpenSSL allows from any thread at once; it is
// freed when the server and every connection thread are done with it.
final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ tls: LoopbackHTTPServer.TLS) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw ServerError("SSL_CTX_new failed") }
        guard SSL_CTX_use_certificate_chain_file(context, tls.certificate) == 1,
            SSL_CTX_use_PrivateKey_file(context, tls.key, SSL_FILETYPE_PEM) == 1
        else {
            SSL_CTX_free(context)
            throw ServerError("cannot load \(tls.certificate) and \(tls.key)")
        }
        pointer = context
    }

    deinit { SSL_CTX_free(pointer) }
}

/// One accepted connection, plain or TLS over it; its reads and writes block.
private struct Channel {
    let fd: Int32
    let ssl: OpaquePointer?

    /// No SIGPIPE when the client has gone: a flag on Linux, a socket option
    /// (`SO_NOSIGPIPE`, set at accept) on Darwin. libssl writes with write(2); its
    /// connection threads block SIGPIPE instead.
    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    /// Appends what arrives to `buffer`; `false` at the end of the stream or an error.
    /// A signal that interrupts the read (a child process of another test exiting) is
    /// not the end of the connection: it reads again.
    func read(into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { bytes -> Int in
                if let ssl { return Int(SSL_read(ssl, bytes.baseAddress, Int32(bytes.count))) }
                return recv(fd, bytes.baseAddress, bytes.count, 0)
            }
            if count > 0 {
                buffer += chunk[..<count]
                return true
            }
            guard interrupted(count) else { return false }
        }
    }

    /// Whether a read or write that returned `result` was only interrupted by a signal.
    private func interrupted(_ result: Int) -> Bool {
        guard result < 0 else { return false }
        if let ssl { return SSL_get_error(ssl, Int32(result)) == SSL_ERROR_SYSCALL && errno == EINTR }
        return errno == EINTR
    }

    /// Sends all of `bytes`; `false` when the connection failed first.
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { all -> Int in
                guard let start = all.baseAddress else { return 0 }
                if let ssl { return Int(SSL_write(ssl, start + offset, Int32(bytes.count - offset))) }
                return send(fd, start + offset, bytes.count - offset, Self.sendFlags)
            }
            if sent <= 0 {
                guard interrupted(sent) else { return false }
                continue
            }
            offset += sent
        }
        return true
    }

    /// Where the head (`\r\n\r\n`) ends in `buffer`, reading until it does; `nil` when
    /// the stream ends first.
    func headEnd(_ buffer: inout [UInt8]) -> Int? {
        let marker: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4) where buffer[index..<index + 4].elementsEqual(marker) { return index }
            }
            guard read(into: &buffer) else { return nil }
        }
    }
}

extension LoopbackHTTPServer {
    /// Serves connection `fd` (the server's `number`th) until it ends or the script
    /// closes it; TLS first when `tls` is given.
    func serve(_ fd: Int32, number: Int, tls: TLSContext?) {
        defer {
            // Out of the set before closing, under the lock `stop` shuts down with.
            state.withLock { _ = $0.connections.remove(fd) }
            close(fd)
        }
        var ssl: OpaquePointer?
        if let tls {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            guard let made = SSL_new(tls.pointer) else { return }
            SSL_set_fd(made, fd)
            guard SSL_accept(made) == 1 else {
                SSL_free(made)
                state.withLock { $0.failedHandshakes += 1 }
                return
            }
            state.withLock { $0.handshakes += 1 }
            ssl = made
        }
        defer {
            if let ssl {
                SSL_shutdown(ssl)
                SSL_free(ssl)
            }
        }
        exchange(Channel(fd: fd, ssl: ssl), number: number)
    }

    /// Reads each request and answers it as scripted, until the connection ends.
    private func exchange(_ channel: Channel, number connection: Int) {
        var buffer: [UInt8] = []
        var onConnection = 0
        while true {
            guard let headerEnd = channel.headEnd(&buffer) else { return }
            let head = String(decoding: buffer[..<headerEnd], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let line = lines.removeFirst()
            let requestLine = line.split(separator: " ")
            var headers: [String: String] = [:]
            for field in lines {
                guard let colon = field.firstIndex(of: ":") else { continue }
                headers[field[..<colon].lowercased()] = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            buffer.removeFirst(headerEnd + 4)
            if headers["expect"]?.lowercased() == "100-continue" { _ = channel.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while buffer.count < length {
                guard channel.read(into: &buffer) else { return }
            }
            let body = Array(buffer.prefix(length))
            buffer.removeFirst(length)
            let arrival = ContinuousClock.now
            let (request, stops) = state.withLock { state in
                let request = Request(
                    method: requestLine.first.map(String.init) ?? "", path: requestLine.dropFirst().first.map(String.init) ?? "",
                    headers: headers, body: body, index: state.requests.count, connection: connection,
                    indexOnConnection: onConnection, line: line, arrival: arrival)
                if let verify, !verify.accepts(request) { state.failedVerification += 1 }
                state.requests.append(request)
                arrivals.resumeSatisfied(by: state.requests.count)
                return (request, state.stops)
            }
            onConnection += 1
            let reply = answer(request)
            if latency > .zero {
                // The endpoint's own time: ends early only when the server stops.
                _ = state.wait(until: arrival + latency) { $0.stops != stops }
            }
            switch reply {
            case let .status(code, extra):
                var response = "HTTP/1.1 \(code) Scripted\r\nContent-Length: 0\r\n"
                for (name, value) in extra { response += "\(name): \(value)\r\n" }
                guard channel.write(Array((response + "\r\n").utf8)) else { return }
            case .bytes(let bytes):
                guard channel.write(bytes) else { return }
            case .bytesThenClose(let bytes):
                _ = channel.write(bytes)
                return
            case .close:
                return
            case .hang:
                // Until the client closes or `stop` shuts the connection down.
                while channel.read(into: &buffer) {}
                return
            }
        }
    }
}
