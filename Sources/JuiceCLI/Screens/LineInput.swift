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
import JuiceMakerPluginKit

/// What reading one line from the person gave.
enum InputLine: Sendable, Equatable {
    /// A line, without its line ending.
    case line(String)
    /// End of input: Ctrl-D on a terminal, the end of a pipe or file.
    case end
    /// A stop signal arrived (Ctrl-C, SIGTERM, SIGHUP); nothing more is read.
    case interrupted
}

/// Which earlier lines ↑ recalls at a prompt: each screen keeps its own, so the
/// order prompt offers orders and the stock prompt stock edits. Answers to a
/// `(y/N)` question are kept in none.
enum LineHistory: Sendable, Hashable {
    case orders, stock
}

/// Reads lines from a descriptor (standard input), the person's way:
///
/// - On a terminal (standard input and output both), with line editing and history
///   (`LineEditor`, GNU readline): arrows, Home/End, Ctrl-A/E/U/W, ↑ for earlier lines.
/// - Otherwise (a pipe, a file, or output that is not a terminal) plainly: the bytes
///   as they come, decoded as UTF-8; a last line without a newline still counts.
///
/// Either way it waits in `poll(2)` on the input and on the stop signals' wake-up
/// descriptor, so Ctrl-C or SIGTERM ends a wait at once, and once stopped it reads
/// nothing more. On a terminal Ctrl-D ends one read, not the input: the stock screen
/// returns to the order screen, which reads on.
///
/// Used by one screen at a time, from one thread.
final class LineInput {
    private let descriptor: Int32
    private let stop: StopSignals
    private let output: any TextSink
    private let editor: LineEditor?
    private var buffer: [UInt8] = []
    private var atEnd = false
    /// The lines typed at each kind of prompt, oldest first (with `editor` only).
    private var histories: [LineHistory: [String]] = [:]
    /// How many lines each history keeps.
    static let historyLimit = 500

    /// Whether the input is a terminal (prompts are shown only then).
    let isTerminal: Bool

    /// `output` shows prompts when the input is a terminal; line editing is used when
    /// it is one too (and `juice` was built with readline).
    init(descriptor: Int32 = STDIN_FILENO, stop: StopSignals, output: any TextSink) {
        self.descriptor = descriptor
        self.stop = stop
        self.output = output
        self.isTerminal = isatty(descriptor) == 1
        editor = isTerminal && output.isTerminal ? LineEditor.make(input: descriptor, stop: stop) : nil
    }

    /// Shows `prompt` (on a terminal), then returns the next line, the end of input or
    /// the stop. A line read at a prompt with a `history` joins that history.
    ///
    /// The end of input from a terminal that hung up (its other side closed, so reads
    /// end or fail with EIO) is the hang-up, as if SIGHUP had come: `.interrupted`,
    /// and the run exits 129, also when the SIGHUP is late or never sent.
    func next(prompt: String = "", history: LineHistory? = nil) -> InputLine {
        let line = nextLine(prompt: prompt, history: history)
        guard line == .end, isTerminal, Self.isHungUp(descriptor) else { return line }
        stop.hangUp()
        return .interrupted
    }

    /// Whether the terminal `descriptor` hung up: its attributes can no longer be read (EIO).
    static func isHungUp(_ descriptor: Int32) -> Bool {
        var attributes = termios()
        return tcgetattr(descriptor, &attributes) != 0 && errno == EIO
    }

    private func nextLine(prompt: String, history: LineHistory?) -> InputLine {
        guard let editor else {
            if isTerminal, !prompt.isEmpty { output.write(prompt) }
            return nextPlain()
        }
        let line = editor.read(prompt: prompt, history: history.map { histories[$0] ?? [] } ?? [])
        if let history, case .line(let text) = line, !text.trimmingWhitespace().isEmpty,
            histories[history]?.last != text
        {
            histories[history, default: []].append(text)
            if histories[history, default: []].count > Self.historyLimit { histories[history]?.removeFirst() }
        }
        return line
    }

    private func nextPlain() -> InputLine {
        while true {
            if stop.isRequested { return .interrupted }
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Self.decode(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if atEnd {
                guard !buffer.isEmpty else {
                    // A terminal's Ctrl-D ends this read only; a pipe's end is final.
                    if isTerminal { atEnd = false }
                    return .end
                }
                defer { buffer.removeAll() }
                return .line(Self.decode(buffer[...]))
            }
            fill()
        }
    }

    /// Waits for input or a stop signal, then reads what is there.
    private func fill() {
        guard let readable = Self.waitForInput(descriptor, stop: stop) else { return }
        guard readable else {
            atEnd = true
            return
        }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &chunk, chunk.count)
        if count > 0 {
            buffer += chunk[..<count]
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            atEnd = true
        }
    }

    /// Waits in `poll(2)` until `descriptor` can be read or a stop signal arrives:
    /// `true` when it can be read (or is at its end), `false` when it failed, `nil`
    /// when the wait ended without input (a stop signal, or a signal that
    /// interrupted `poll`). After a stop signal, input readiness is not looked at,
    /// so a pending line is not read after it.
    static func waitForInput(_ descriptor: Int32, stop: StopSignals) -> Bool? {
        var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let wake = stop.wakeDescriptor {
            watched.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
        }
        let timeout: Int32 = stop.wakeDescriptor == nil ? 100 : -1
        let ready = poll(&watched, nfds_t(watched.count), timeout)
        if ready < 0 { return errno == EINTR ? nil : false }
        guard ready > 0, watched[0].revents != 0, !stop.isRequested else { return nil }
        return watched[0].revents & Int16(POLLNVAL) == 0
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasSuffix("\r") ? String(text.dropLast()) : text
    }
}
