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

/// What reading one line from the person gave.
enum InputLine: Sendable, Equatable {
    /// A line, without its line ending.
    case line(String)
    /// End of input: Ctrl-D on a terminal, the end of a pipe or file.
    case end
    /// Ctrl-C was pressed; nothing more is read.
    case interrupted
}

/// Reads lines from a descriptor (standard input): a terminal in its usual line
/// mode, a pipe or a file, the same way. It waits in `poll(2)` on the input and on
/// the interrupt's wake-up descriptor, so Ctrl-C ends a wait at once, and once
/// interrupted it reads nothing more. Bytes are decoded as UTF-8; a last line
/// without a newline still counts.
///
/// Used by one screen at a time, from one thread.
final class LineInput {
    private let descriptor: Int32
    private let interrupt: InterruptSignal
    private var buffer: [UInt8] = []
    private var atEnd = false

    /// Whether the input is a terminal (prompts are shown only then).
    let isTerminal: Bool

    init(descriptor: Int32 = STDIN_FILENO, interrupt: InterruptSignal) {
        self.descriptor = descriptor
        self.interrupt = interrupt
        self.isTerminal = isatty(descriptor) == 1
    }

    /// The next line, the end of input, or the interruption.
    func next() -> InputLine {
        while true {
            if interrupt.isRequested { return .interrupted }
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Self.decode(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if atEnd {
                guard !buffer.isEmpty else { return .end }
                defer { buffer.removeAll() }
                return .line(Self.decode(buffer[...]))
            }
            fill()
        }
    }

    /// Waits for input or Ctrl-C, then reads what is there.
    private func fill() {
        var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let wake = interrupt.wakeDescriptor {
            watched.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
        }
        let timeout: Int32 = interrupt.wakeDescriptor == nil ? 100 : -1
        let ready = poll(&watched, nfds_t(watched.count), timeout)
        if ready < 0 {
            if errno != EINTR { atEnd = true }
            return
        }
        // On Ctrl-C the loop in `next` sees the flag; input readiness is checked
        // only otherwise, so a pending line is not read after the interruption.
        guard ready > 0, watched[0].revents != 0, !interrupt.isRequested else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &chunk, chunk.count)
        if count > 0 {
            buffer += chunk[..<count]
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            atEnd = true
        }
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasSuffix("\r") ? String(text.dropLast()) : text
    }
}
