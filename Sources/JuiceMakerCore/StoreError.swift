/// A store could not do what was asked. The message names the file and the problem.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The file or its directory cannot be opened, created or written.
        case inaccessible
        /// The file is not a database, or is damaged.
        case corrupt
        /// The file is a database of another application.
        case foreign
        /// The file was written by a newer version of JuiceMaker.
        case newerVersion
        /// Another process held the store for longer than the busy timeout.
        case busy
        /// Any other input/output failure.
        case io
    }

    public let kind: Kind
    /// The store's location (`:memory:` for the in-memory store).
    public let path: String
    /// What went wrong and how to fix it, in one sentence.
    public let detail: String

    public init(_ kind: Kind, path: String, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    public var description: String { "store \(path): \(detail)" }
}
