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

/// One address `getaddrinfo` gave for a host, copied out of its list.
struct SocketAddress: Sendable {
    let family: Int32
    let bytes: [UInt8]

    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        bytes.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }
}

/// TCP sockets for the HTTP client: name lookup, connecting and moving bytes, each
/// bounded by an `HTTPWait` (the request's deadline and cancellation). Descriptors are
/// non-blocking and close-on-exec; writes never raise SIGPIPE.
enum HTTPSocket {
    /// The addresses of `host` (IPv4 and IPv6, in the resolver's order) for TCP `port`.
    /// A numeric address is converted at once; a name is looked up on a thread of its
    /// own, since `getaddrinfo` cannot be bounded or cancelled: the wait for it is.
    static func addresses(of host: String, port: UInt16, isNumeric: Bool, wait: HTTPWait) throws(HTTPClientError) -> [SocketAddress] {
        if isNumeric { return try lookUp(host, port: port, numeric: true).get() }
        let lookup = try NameLookup(host: host, port: port)
        return try lookup.result(wait)
    }

    /// `getaddrinfo` for a stream socket; the addresses, or why there are none.
    static func lookUp(_ host: String, port: UInt16, numeric: Bool) -> Result<[SocketAddress], HTTPClientError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICSERV | (numeric ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(.hostNotFound(String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let info = current.pointee
            if let address = info.ai_addr, info.ai_family == AF_INET || info.ai_family == AF_INET6 {
                let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen)))
                addresses.append(SocketAddress(family: info.ai_family, bytes: bytes))
            }
            entry = info.ai_next
        }
        return addresses.isEmpty ? .failure(.hostNotFound("no IPv4 or IPv6 address")) : .success(addresses)
    }

    /// A connected socket to the first of `addresses` that accepts. Each address but
    /// the last gets an even share of the time left, so one that never answers (an
    /// unreachable IPv6 route) leaves time for the next. The error is the last
    /// address's, or `timedOut` once the request's deadline has passed.
    static func connect(to addresses: [SocketAddress], wait: HTTPWait) throws(HTTPClientError) -> Int32 {
        var failure = HTTPClientError.connectionRefused
        for (index, address) in addresses.enumerated() {
            try wait.check()
            let left = ContinuousClock.now.duration(to: wait.deadline)
            let share = left / (addresses.count - index)
            do {
                return try connect(to: address, wait: wait, until: ContinuousClock.now + share)
            } catch {
                if error == .cancelled || ContinuousClock.now >= wait.deadline { throw error }
                failure = error
            }
        }
        throw failure
    }

    private static func connect(to address: SocketAddress, wait: HTTPWait, until limit: ContinuousClock.Instant) throws(HTTPClientError) -> Int32 {
        let descriptor = try openSocket(family: address.family)
        var connected = false
        defer { if !connected { close(descriptor) } }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        let status = address.withSockaddr { SystemCall.connect(descriptor, $0, $1) }
        if status != 0 {
            let error = errno
            guard error == EINPROGRESS || error == EINTR else { throw connectFailure(error) }
            _ = try wait.wait(descriptor, for: Int16(POLLOUT), until: limit)
            var pending: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else { throw connectFailure(errno) }
            if pending != 0 { throw connectFailure(pending) }
        }
        connected = true
        return descriptor
    }

    private static func openSocket(family: Int32) throws(HTTPClientError) -> Int32 {
        #if os(Linux)
        let descriptor = socket(family, streamType | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), Int32(IPPROTO_TCP))
        guard descriptor >= 0 else { throw .system("socket: \(lastError)") }
        #else
        let descriptor = socket(family, streamType, Int32(IPPROTO_TCP))
        guard descriptor >= 0 else { throw .system("socket: \(lastError)") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return descriptor
    }

    private static func connectFailure(_ error: Int32) -> HTTPClientError {
        switch error {
        case ECONNREFUSED: .connectionRefused
        case ETIMEDOUT: .timedOut
        default: .cannotConnect(String(cString: strerror(error)))
        }
    }

    /// Writes all of `bytes`, waiting for room as needed. A connection the peer closed
    /// or reset is `connectionLost`.
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, wait: HTTPWait) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = SystemCall.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, noSignal)
            if sent > 0 {
                offset += sent
                continue
            }
            let error = errno
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: _ = try wait.wait(descriptor, for: Int16(POLLOUT))
            case EPIPE, ECONNRESET, ENOTCONN: throw .connectionLost
            default: throw .system("send: \(String(cString: strerror(error)))")
            }
        }
    }

    /// Waits until `descriptor` is readable and reads what is there into `buffer`:
    /// the byte count, 0 at the end of the stream. A reset is `connectionLost`.
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, wait: HTTPWait) throws(HTTPClientError) -> Int {
        while true {
            _ = try wait.wait(descriptor, for: Int16(POLLIN))
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            let error = errno
            switch error {
            case EINTR, EAGAIN, EWOULDBLOCK: continue
            case ECONNRESET, ENOTCONN, ETIMEDOUT: throw .connectionLost
            default: throw .system("recv: \(String(cString: strerror(error)))")
            }
        }
    }

    /// Whether an idle kept-alive connection is still usable: nothing to read (a
    /// close, a reset or stray bytes all mean no), checked without waiting.
    static func isIdleAndOpen(_ descriptor: Int32) -> Bool {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        // A signal (a child's exit) interrupting the look says nothing about the connection.
        var ready = poll(&descriptors, 1, 0)
        while ready < 0, errno == EINTR { ready = poll(&descriptors, 1, 0) }
        return ready == 0
    }

    #if os(Linux)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    /// `send` flags: no SIGPIPE on a closed connection (Darwin: `SO_NOSIGPIPE` instead).
    static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    static let streamType = SOCK_STREAM
    static let noSignal: Int32 = 0
    #endif

    private static var lastError: String { String(cString: strerror(errno)) }
}
