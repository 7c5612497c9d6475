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
import Locking

/// A `getaddrinfo` call on a thread of its own that the caller waits for with a
/// bound: done, it writes a byte to a pipe the caller polls. A caller that stops
/// waiting (timeout, cancel) leaves the thread to finish and free everything alone.
final class NameLookup: Sendable {
    private let outcome = Locked<Result<[SocketAddress], HTTPClientError>?>(nil)
    private let doneRead: Int32
    private let doneWrite: Int32

    init(host: String, port: UInt16) throws(HTTPClientError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system("pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        doneRead = ends[0]
        doneWrite = ends[1]
        startDetachedThread(named: "juice.webhook.lookup") { [self] in
            let result = HTTPSocket.lookUp(host, port: port, numeric: false)
            outcome.withLock { $0 = result }
            var byte: UInt8 = 1
            _ = write(doneWrite, &byte, 1)
        }
    }

    deinit {
        close(doneRead)
        close(doneWrite)
    }

    func result(_ wait: HTTPWait) throws(HTTPClientError) -> [SocketAddress] {
        while true {
            if let result = outcome.withLock({ $0 }) { return try result.get() }
            _ = try wait.wait(doneRead, for: Int16(POLLIN))
        }
    }
}
