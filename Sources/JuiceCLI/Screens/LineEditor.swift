#if !JUICE_WITHOUT_READLINE
import CReadline
#endif
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

/// Line editing with history at a terminal, through GNU readline's callback
/// interface: what a REPL offers (← →, Home/End, Ctrl-A/E/U/W/K, ↑ ↓ through the
/// screen's earlier lines, `~/.inputrc` under the name `juice`).
///
/// Signals stay `StopSignals`'s: readline is told to install no handler of its own
/// (`rl_catch_signals = 0`, `rl_catch_sigwinch = 0`). Instead of the blocking
/// `readline()`, the editor waits in `poll(2)` on the terminal and on the stop
/// signals' wake-up descriptor, and hands readline one key at a time
/// (`rl_callback_read_char`). A stop signal while a prompt waits ends the wait at
/// once: the partial line is thrown away and the terminal restored (`abandon`)
/// before the screen returns. Between prompts (while an
/// order runs) the terminal is in its usual mode: readline prepares it when a prompt
/// is shown and restores it when the line is read.
///
/// The history is the screen's, in memory for this run only (never written to a
/// file): `LineInput` keeps one per kind of prompt and loads it into readline before
/// each read.
///
/// readline's state is the process's: one editor reads at a time, on one thread.
/// The library is loaded when the first editor is made (`juice_readline_load`), not
/// when `juice` starts; where it cannot be loaded, or `juice` was built with
/// `-DJUICE_WITHOUT_READLINE`, `make` returns nil and the screens read plain lines
/// (the article "Line editing and the GPL").
final class LineEditor {
    private let descriptor: Int32
    private let stop: StopSignals
    private var shownBefore = false
    #if !JUICE_WITHOUT_READLINE
    private let readline: juice_readline

    private init(descriptor: Int32, stop: StopSignals, readline: juice_readline) {
        self.descriptor = descriptor
        self.stop = stop
        self.readline = readline
    }
    #else
    private init(descriptor: Int32, stop: StopSignals) {
        self.descriptor = descriptor
        self.stop = stop
    }
    #endif

    /// An editor for the terminal `input` (standard input), or nil when `juice` was
    /// built without readline or the system's libreadline cannot be loaded.
    static func make(input: Int32, stop: StopSignals) -> LineEditor? {
        #if JUICE_WITHOUT_READLINE
        return nil
        #else
        guard input == STDIN_FILENO else { return nil }  // readline reads rl_instream, stdin
        Self.useUTF8Characters()
        let table = UnsafeMutablePointer<juice_readline>.allocate(capacity: 1)
        defer { table.deallocate() }
        guard juice_readline_load(table) == nil else { return nil }
        let readline = table.pointee
        Self.received.withLock { $0.removeHandler = readline.rl_callback_handler_remove }
        return LineEditor(descriptor: input, stop: stop, readline: readline)
        #endif
    }

    #if JUICE_WITHOUT_READLINE
    func read(prompt: String, history: [String]) -> InputLine { .end }
    #else
    /// What readline's line handler needs and received (a line, or the end of input:
    /// nil). A C callback captures nothing, so this is the editor's one static state,
    /// as readline's own is the process's.
    private struct HandlerState: Sendable {
        var line: InputLine?
        var removeHandler: (@convention(c) () -> Void)?
    }

    private static let received = Locked(HandlerState())

    /// readline's line handler: called from `rl_callback_read_char` on this thread
    /// when Enter (or Ctrl-D on an empty line) ends the line.
    private static let lineHandler: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { text in
        let line: InputLine
        if let text {
            line = .line(String(cString: text))
            free(text)
        } else {
            line = .end
        }
        // One line per prompt: the next read installs the handler again with its prompt.
        let removeHandler = LineEditor.received.withLock { state in
            state.line = line
            return state.removeHandler
        }
        removeHandler?()
    }

    /// Throws away the line being typed and gives the terminal back (after Ctrl-C or
    /// SIGTERM while a prompt waits).
    private func abandon() {
        readline.rl_free_line_state()
        readline.rl_callback_sigcleanup()
        readline.rl_callback_handler_remove()
    }

    /// Shows `prompt`, lets the person edit a line with `history` behind ↑, and
    /// returns it; `.end` for Ctrl-D on an empty line (or a terminal that went away),
    /// `.interrupted` for a stop signal.
    func read(prompt: String, history: [String]) -> InputLine {
        if stop.isRequested { return .interrupted }
        readline.clear_history()
        for entry in history { readline.add_history(entry) }
        // The terminal may have been resized since the last prompt.
        if shownBefore { readline.rl_reset_screen_size() }
        shownBefore = true
        Self.received.withLock { $0.line = nil }
        readline.rl_callback_handler_install(prompt, Self.lineHandler)
        while true {
            switch LineInput.waitForInput(descriptor, stop: stop) {
            case .none:
                if stop.isRequested {
                    abandon()
                    return .interrupted
                }
            case .some(false):
                abandon()
                return .end
            case .some(true):
                readline.rl_callback_read_char()
                if let line = Self.received.withLock({ $0.line.take() }) { return line }
                // A terminal that hung up ends the read even if readline did not say so.
                if LineInput.isHungUp(descriptor) {
                    abandon()
                    return .end
                }
            }
        }
    }

    /// readline edits characters, not bytes, only in a multibyte locale; `juice`
    /// always speaks UTF-8, so the editor uses the person's locale when it is UTF-8
    /// and C.UTF-8 otherwise (also when the named locale is not installed).
    private static func useUTF8Characters() {
        if setlocale(LC_CTYPE, "") != nil, let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) == "UTF-8" {
            return
        }
        _ = setlocale(LC_CTYPE, "C.UTF-8")
    }
    #endif
}
