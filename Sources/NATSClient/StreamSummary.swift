import CNATSLoader
import JuicePrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stream as the server describes it: what a reader checks before it reads.
package struct StreamSummary: Sendable, Equatable {
    package let name: String
    /// The subjects it takes.
    package let subjects: [String]
    /// How long it keeps a message, in seconds; `nil`: for good.
    package let maxAge: Double?
    /// How many bytes it keeps at most; `nil`: no limit.
    package let maxBytes: Int64?
    /// What it does when a limit is reached: drop the oldest messages (`old`) or
    /// refuse new ones (`new`).
    package let discard: StreamRetention.Discard
    /// The messages it holds now.
    package let messages: UInt64
    /// The sequence of its newest message (0: none yet).
    package let lastSequence: UInt64
    /// The sequence of its oldest message.
    package let firstSequence: UInt64
    /// When its oldest message was stored; `nil` when it holds none.
    package let firstTime: Date?
    /// When the server created it, in nanoseconds since 1970 (UTC): a stream deleted and
    /// created again under the same name has another (`StreamIdentity`).
    package let created: Int64

    /// Which stream this is, of those that ever had its name.
    package var identity: StreamIdentity { StreamIdentity(created: created) }

    init(name: String, info: jsStreamInfo) {
        self.name = name
        var subjects: [String] = []
        if let config = info.Config, let list = config.pointee.Subjects {
            for index in 0..<Int(config.pointee.SubjectsLen) {
                if let subject = list[index] { subjects.append(String(cString: subject)) }
            }
        }
        self.subjects = subjects
        // Read through the pointer, field by field: the library's struct is its own size,
        // smaller than the header's (which has room for a newer library's fields).
        let config = info.Config
        maxAge = config.flatMap { $0.pointee.MaxAge > 0 ? Double($0.pointee.MaxAge) / 1e9 : nil }
        maxBytes = config.flatMap { $0.pointee.MaxBytes > 0 ? $0.pointee.MaxBytes : nil }
        discard = config?.pointee.Discard == js_DiscardNew ? .new : .old
        messages = info.State.Msgs
        lastSequence = info.State.LastSeq
        firstSequence = info.State.FirstSeq
        firstTime = info.State.Msgs > 0 ? Date(timeIntervalSince1970: Double(info.State.FirstTime) / 1e9) : nil
        created = info.Created
    }

    /// Whether it takes `subjects` (`<prefix>.>`).
    func takes(_ wanted: String) -> Bool {
        subjects.contains(wanted) || subjects.contains(">")
    }

    /// The error for a stream that does not take `wanted`.
    func mismatch(_ wanted: String) -> NATSError {
        NATSError(
            "stream \(name) exists with subjects \(subjects.joined(separator: ", ")), not \(wanted); "
                + "set another \"stream\" or \"subjectPrefix\" (the same on every machine and in fleet), or change the stream (nats stream edit)",
            kind: .streamMismatch)
    }
}

/// One stream among those that had the same name: a stream deleted and created again
/// (by an operator, or by a machine's next publish) is another history, whose
/// sequences start over. Told apart by the time the server created it, in nanoseconds,
/// so also when it was created again within a second.
package struct StreamIdentity: Sendable, Equatable, CustomStringConvertible {
    /// Nanoseconds since 1970 (UTC).
    package let created: Int64

    /// The creation time, to the millisecond (`2026-11-21T04:23:49.123Z`).
    package var description: String {
        RFC3339.format(Date(timeIntervalSince1970: Double(created) / 1e9))
    }

    /// What a fleet dead letter's last error ends with: the stream its message was in.
    var mark: String { " [stream created \(created)]" }

    /// `text` ending with `mark`, once (a letter kept again keeps one mark, this stream's).
    package func marking(_ text: String) -> String {
        Self.unmarked(text).text + mark
    }

    /// `text` without the stream mark at its end, and the creation time it named, if any.
    package static func unmarked(_ text: String) -> (text: String, stream: StreamIdentity?) {
        let marker = " [stream created "
        guard text.hasSuffix("]") else { return (text, nil) }
        let inner = text.dropLast()
        let digits = inner.reversed().prefix { $0.isASCII && $0.isNumber }
        let before = inner.dropLast(digits.count)
        guard !digits.isEmpty, before.hasSuffix(marker), let created = Int64(String(digits.reversed())) else { return (text, nil) }
        return (String(before.dropLast(marker.count)), StreamIdentity(created: created))
    }
}

/// The limits a stream keeps its messages by, under NATS's own names: `max_age`,
/// `max_bytes` and `discard`. A limit left `nil` is not set by this client.
package struct StreamRetention: Sendable, Equatable {
    /// What the stream does when a limit is reached.
    package enum Discard: String, Sendable, Equatable {
        /// Drops its oldest messages (the NATS default).
        case old
        /// Refuses new messages: the publisher retries on its schedule.
        case new
    }

    /// Seconds a message is kept.
    package var maxAge: Double?
    /// Bytes the stream keeps at most.
    package var maxBytes: Int64?
    /// What happens at a limit; `nil`: the stream's (NATS: `old`).
    package var discard: Discard?

    package init(maxAge: Double? = nil, maxBytes: Int64? = nil, discard: Discard? = nil) {
        self.maxAge = maxAge
        self.maxBytes = maxBytes
        self.discard = discard
    }

    /// Whether `stream` already keeps these limits.
    func isMet(by stream: StreamSummary) -> Bool {
        if let maxAge, stream.maxAge.map({ abs($0 - maxAge) < 0.001 }) != true { return false }
        if let maxBytes, stream.maxBytes != maxBytes { return false }
        if let discard, stream.discard != discard { return false }
        return true
    }

    /// Sets the limits given in `config`.
    func apply(to config: inout jsStreamConfig) {
        if let maxAge { config.MaxAge = Int64((maxAge * 1e9).rounded()) }
        if let maxBytes { config.MaxBytes = maxBytes }
        if let discard { config.Discard = discard == .new ? js_DiscardNew : js_DiscardOld }
    }
}
