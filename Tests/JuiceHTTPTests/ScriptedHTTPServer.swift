import Foundation
import JuiceTestSupport
import Locking

/// A loopback TCP server for the HTTP client's tests (IPv4 or IPv6): reads each
/// request (head, then a `Content-Length` body) and answers with exactly the bytes the
/// script gives, or closes, or never answers. Counts connections. Its threads block in
/// `accept` and `recv`; `stop` ends them.
final class ScriptedHTTPServer: Sendable {
    struct Request: Sendable {
        /// 0-based over the server's life, and on its connection.
        let index: Int
        let connection: Int
        let indexOnConnection: Int
        /// The request line, and header fields with lowercased names.
        let line: String
        let headers: [String: String]
        let body: [UInt8]
    }

    enum Reply: Sendable {
        /// These bytes; the connection stays open for the next request.
        case bytes([UInt8])
        /// These bytes, then the server closes the connection.
        case bytesThenClose([UInt8])
        /// Closes the connection without answering.
        case close
        /// Never answers; the connection stays open until `stop`.
        case hang
    }

    private struct State {
        var connections: [Int32] = []
        var accepted = 0
        var requests: [Request] = []
        var running = true
    }

    let port: UInt16
    private let listener: Int32
    private let state = Locked(State())
    private let script: @Sendable (Request) -> Reply

    /// Listens on 127.0.0.1, or on ::1 with `ipv6`.
    init(ipv6: Bool = false, script: @escaping @Sendable (Request) -> Reply) throws {
        self.script = script
        let family = ipv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket: \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeBytes(of: address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeBytes(of: address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ServerError("bind/listen: \(errno)")
        }
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        // The port sits at the same offset in sockaddr_in and sockaddr_in6.
        port = withUnsafeBytes(of: storage) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
        listener = fd
        Thread { [self] in acceptLoop() }.start()
    }

    var host: String { "127.0.0.1" }
    var connectionsAccepted: Int { state.withLock { $0.accepted } }
    var requests: [Request] { state.withLock { $0.requests } }

    func stop() {
        state.withLock { state in
            state.running = false
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let index = state.withLock { state -> Int? in
                guard state.running else { return nil }
                state.connections.append(connection)
                state.accepted += 1
                return state.accepted - 1
            }
            guard let index else {
                close(connection)
                return
            }
            Thread { [self] in serve(connection, index: index) }.start()
        }
    }

    private func serve(_ fd: Int32, index connection: Int) {
        defer {
            // Out of the list before closing, under the lock `stop` shuts down with.
            state.withLock { $0.connections.removeAll { $0 == fd } }
            close(fd)
        }
        var buffer: [UInt8] = []
        var onConnection = 0
        while true {
            guard let end = headEnd(fd, &buffer) else { return }
            let head = String(decoding: buffer[..<end], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let line = lines.removeFirst()
            var headers: [String: String] = [:]
            for field in lines {
                guard let colon = field.firstIndex(of: ":") else { continue }
                headers[field[..<colon].lowercased()] = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            buffer.removeFirst(end + 4)
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while buffer.count < length {
                guard readMore(fd, &buffer) else { return }
            }
            let body = Array(buffer.prefix(length))
            buffer.removeFirst(length)
            let request = state.withLock { state in
                let request = Request(
                    index: state.requests.count, connection: connection, indexOnConnection: onConnection, line: line,
                    headers: headers, body: body)
                state.requests.append(request)
                return request
            }
            onConnection += 1
            switch script(request) {
            case .bytes(let bytes):
                guard send(fd, bytes) else { return }
            case .bytesThenClose(let bytes):
                _ = send(fd, bytes)
                return
            case .close:
                return
            case .hang:
                // Blocks until the client closes or `stop` shuts the connection down.
                while readMore(fd, &buffer) {}
                return
            }
        }
    }

    private func headEnd(_ fd: Int32, _ buffer: inout [UInt8]) -> Int? {
        while true {
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4)
                where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                    return index
                }
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

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Whether this machine can listen on ::1.
    static let ipv6LoopbackAvailable: Bool = {
        guard let server = try? ScriptedHTTPServer(ipv6: true, script: { _ in .close }) else { return false }
        server.stop()
        return true
    }()
}

extension String {
    /// The text's UTF-8 bytes: a reply as written.
    var bytes: [UInt8] { Array(utf8) }
}
