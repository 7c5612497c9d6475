import Foundation
import JuiceTestSupport
import Locking

/// A named pipe in a test's directory, for programs that another process runs: they
/// write a line to it (or read one from it), and the test waits for those lines as a
/// signal, where a file would have to be polled.
///
/// The test holds it open for reading and writing, so a program's open never waits,
/// a writer never finds no reader, and lines wait in the pipe until read.
final class LineFIFO: Sendable {
    let path: String
    private let descriptor: Int32

    init(_ path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw ServerError("mkfifo \(path): \(errno)") }
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServerError("open \(path): \(errno)") }
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// Writes `text` for the programs that read.
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Waits until `count` lines have come, at most `limit` (only a hang reaches it),
    /// and returns the lines that came. It waits in `poll(2)`, on a thread of its own.
    func lines(_ count: Int, within limit: Duration = .seconds(30)) async -> [String] {
        let descriptor = descriptor
        let deadline = ContinuousClock.now + limit
        return await withCheckedContinuation { continuation in
            Thread {
                var bytes: [UInt8] = []
                while bytes.count(where: { $0 == UInt8(ascii: "\n") }) < count {
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard left > .zero else { break }
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&poller, 1, Int32(clamping: TimeSpan(left).millisecondsRoundedUp))
                    if ready < 0, errno == EINTR { continue }
                    guard ready >= 0 else { break }
                    guard ready > 0 else { continue }
                    var chunk = [UInt8](repeating: 0, count: 4_096)
                    let read = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
                    if read > 0 { bytes += chunk[..<read] }
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
            }.start()
        }
    }
}
