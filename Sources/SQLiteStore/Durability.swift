/// How hard a commit works to survive a power loss.
public enum Durability: String, Sendable, CaseIterable {
    /// `synchronous=FULL`: a commit that returned survives a power loss or an OS crash.
    case full
    /// `synchronous=NORMAL`: a commit survives a crash of the process; the last
    /// commits before a power loss may be lost, but the file stays consistent.
    case normal

    var pragma: String {
        switch self {
        case .full: "PRAGMA synchronous = FULL"
        case .normal: "PRAGMA synchronous = NORMAL"
        }
    }
}
