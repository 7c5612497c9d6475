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
        SystemCall.close(descriptor)
    }
}
