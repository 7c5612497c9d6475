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
enum ExitCode: Int32, Sendable {
    /// The command did what was asked.
    case success = 0
    /// The order could not be made: not enough fruit. Nothing changed.
    case orderNotMade = 1
    /// The command line is wrong (unknown command or option, missing argument).
    case usage = 64
    /// A value is wrong (negative, unknown fruit or juice, above the maximum).
    case badValue = 65
    /// `juice fleet`: this build has no NATS client, or no NATS server answered
    /// (EX_UNAVAILABLE).
    case unavailable = 69
    /// The store could not be read or written.
    case storeIO = 74
    /// The config is wrong or unreadable.
    case config = 78
    /// `juice deliver`: some events could not be delivered yet (a retry is scheduled
    /// or the destination is stopped); they wait in the journal (EX_TEMPFAIL).
    case tryLater = 75
    /// Stopped by SIGHUP (128 + 1): the terminal went away.
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
}
