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
    /// `juice shell` or `juice stock edit` was left with Ctrl-C (128 + SIGINT), after
    /// the running command finished and plugins shut down. Nothing was left half done.
    case interrupted = 130
}
