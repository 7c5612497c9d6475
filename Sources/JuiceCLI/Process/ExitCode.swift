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

/// The exit statuses of `juice` (the sysexits.h values where one fits).
/// Scripts may rely on them; they never change meaning.
enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// The order could not be made: not enough fruit. Nothing changed.
    case orderNotMade = 1
    /// The command line is wrong (unknown command or option, missing argument).
    case usage = 64
    /// A value is wrong (negative, unknown fruit or juice, above the maximum).
    case badValue = 65
    /// `juice fleet`: this build has no NATS client, no NATS server answered, or no
    /// machine has published to the stream yet (EX_UNAVAILABLE).
    case unavailable = 69
    /// The store could not be read or written.
    case storeIO = 74
    /// The config is wrong or unreadable.
    case config = 78
    /// `juice deliver`: some events could not be delivered yet (a retry is scheduled
    /// or the destination is stopped); they wait in the journal (EX_TEMPFAIL).
    case tryLater = 75
    /// Stopped by SIGHUP (128 + 1), or the screens' terminal hung up: the terminal went away.
    case hangUp = 129
    /// Stopped by Ctrl-C, SIGINT (128 + 2).
    case interrupted = 130
    /// Stopped by SIGTERM (128 + 15).
    case terminated = 143

    /// 128 + `signal` for a stop signal (`StopSignals.caught`): the command that was
    /// running finished, the bus and plugins shut down, and nothing was left half done.
    init?(stoppedBy signal: Int32) {
        switch signal {
        case SIGHUP: self = .hangUp
        case SIGINT: self = .interrupted
        case SIGTERM: self = .terminated
        default: return nil
        }
    }

    /// What the status means, in full: `juice help exit-codes` and `juice(1)`'s EXIT
    /// STATUS list these, in declaration order.
    var reference: String {
        switch self {
        case .success: "Done."
        case .orderNotMade:
            "The order could not be made: not enough fruit. Nothing changed. With --quiet, one line on stderr says what is short."
        case .usage:
            "Usage: an unknown command or option, an unknown help topic (juice help nosuch), an option given twice that is not "
                + "repeatable, a missing argument, a word that is not a number, an empty option value "
                + "(--config \"\"), --version with anything else, --json with a screen or with report --svg -, an argument "
                + "that is not valid UTF-8. The usage line follows the error (not with --json)."
        case .badValue:
            "A bad value: a negative or zero amount, above 1,000,000, an order larger than a full stock makes, an unknown fruit "
                + "or juice, removing more than there is, a bad report duration, date, period or target, a report --since date "
                + "more than 3650 days before the window's end or in the future, a report --at in the future."
        case .unavailable:
            "juice fleet: the NATS C client is not installed on this machine (install libnats; no rebuild is needed), no "
                + "NATS server answered, or the stream does not exist yet: no machine has published to it (EX_UNAVAILABLE)."
        case .storeIO:
            "Store I/O: an unreadable, damaged, cut short, foreign or newer store file; journal rows juice events cannot read "
                + "(every readable event is printed first; they do not count toward --limit); a change to a store marked damaged "
                + "or opened read-only; a --store whose directory does not exist; damage found by store check; an empty store "
                + "file given to store check, backup or recover; a backup of a store marked damaged; a backup or recovery target "
                + "that exists; a report --svg target that cannot be written (a directory, a socket)."
        case .config:
            "Config: malformed JSON (with line and column), an unknown key, a wrong type, an unknown subscriber type, a bad "
                + "value (also in a disabled subscriber), a missing ${VAR} in an enabled subscriber; also a NATS server that "
                + "refuses the token or credentials, a tls:// NATS server that offers no TLS (never used in plain text), a "
                + "fleet stream that exists with other subjects, an unreadable fleet.credentials file, a subscriber's "
                + "maxInFlight above fleet.maxAckPending."
        case .tryLater:
            "juice deliver: some events wait for a retry, or a subscriber is stopped; they stay in the journal (EX_TEMPFAIL)."
        case .hangUp:
            "Stopped by SIGHUP, or the screens' terminal hung up (its reads end or fail with EIO), after a clean shutdown. A "
                + "SIGINT or SIGTERM that comes with it names the exit instead."
        case .interrupted: "Stopped by Ctrl-C (SIGINT), after a clean shutdown."
        case .terminated: "Stopped by SIGTERM (kill, a service manager), after a clean shutdown."
        }
    }
}
