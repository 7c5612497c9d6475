import Foundation
import JuiceTestSupport
import Testing

/// The tests' HTTP server keeps its port while stopped, so a test that stops its
/// endpoint and starts it again gets the same URL back even with other tests binding
/// and connecting beside it.
@Suite(.tags(.unit)) struct LoopbackHTTPServerTests {
    /// A TCP socket on 127.0.0.1 `port`: connected (`connecting`) or bound; errno on failure.
    private static func attempt(_ port: UInt16, connecting: Bool) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connecting
                    ? connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) : bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0 ? 0 : errno
    }

    @Test func aStoppedServerRefusesConnectionsButKeepsItsPortForTheRestart() throws {
        let server = LoopbackHTTPServer()
        try server.start()
        let port = server.port
        #expect(Self.attempt(port, connecting: true) == 0)
        server.stop()
        #expect(Self.attempt(port, connecting: true) == ECONNREFUSED, "a stopped server must look down")
        #expect(Self.attempt(port, connecting: false) == EADDRINUSE, "the port was free for others while stopped")
        try server.start()
        defer { server.stop() }
        #expect(server.port == port)
        #expect(Self.attempt(port, connecting: true) == 0)
    }
}
