import Foundation
import JuiceMakerCore

/// Whether a recovered row that differs from the original is one a reader could tell
/// is damaged (issue 34, item 1: the schema's column types, NOT NULL, valid UTF-8 never
/// replaced, sequences positive, an event id in its form, journal columns agreeing
/// with the event's own JSON). A problem in words, or nil when the row is
/// self-consistent.
enum RowSoundness {
    typealias Value = RawDatabase.Value

    /// The bookkeeping tables, with their columns and keys.
    enum Table: String, CaseIterable {
        case cursors
        case deadLetters = "dead_letters"
        case retryStates = "retry_states"

        var name: String {
            switch self {
            case .cursors: "cursor"
            case .deadLetters: "dead letter"
            case .retryStates: "retry state"
            }
        }

        var columns: String {
            switch self {
            case .cursors: StoreTruth.cursorColumns
            case .deadLetters: StoreTruth.deadLetterColumns
            case .retryStates: StoreTruth.retryStateColumns
            }
        }

        func rows(_ truth: StoreTruth) -> Set<[Value]> {
            switch self {
            case .cursors: truth.cursors
            case .deadLetters: truth.deadLetters
            case .retryStates: truth.retryStates
            }
        }

        /// The primary key (dead letters: subscriber and sequence, UNIQUE).
        func key(_ row: [Value]) -> [Value] { self == .deadLetters ? Array(row.prefix(2)) : [row[0]] }

        /// The storage class each column must have: t text, i integer, r real.
        private var classes: String {
            switch self {
            case .cursors: "ti"
            case .deadLetters: "tititr"
            case .retryStates: "tiirti"
            }
        }

        func problem(_ row: [Value], original: [Value]) -> String? {
            if let problem = RowSoundness.classes(row, classes, original: original) { return problem }
            switch self {
            case .cursors:
                if case .integer(let sequence) = row[1], sequence < 0 { return "negative sequence" }
            case .deadLetters:
                if case .integer(let sequence) = row[1], sequence < 1 { return "sequence \(sequence)" }
                if case .text(let id) = row[2], EventID(String(decoding: id, as: UTF8.self)) == nil { return "event_id not an event id" }
            case .retryStates:
                if case .integer(let disabled) = row[5], disabled != 0 && disabled != 1 { return "disabled \(disabled)" }
            }
            return nil
        }
    }

    /// Each column of the storage class `classes` says, its text valid UTF-8 with no
    /// U+FFFD the original lacked (a lossy decoding).
    static func classes(_ row: [Value], _ classes: String, original: [Value]) -> String? {
        for (index, (value, wanted)) in zip(row, classes).enumerated() {
            switch (value, wanted) {
            case (.integer, "i"), (.real, "r"): continue
            case (.text(let bytes), "t"):
                guard String(validating: bytes, as: UTF8.self) != nil else { return "column \(index + 1): invalid UTF-8" }
                if bytes.hasReplacement, case .text(let was) = original[index], !was.hasReplacement {
                    return "column \(index + 1): U+FFFD where the original had none (invalid UTF-8 replaced)"
                }
            default: return "column \(index + 1) stored as \(value), the schema says \(wanted == "t" ? "TEXT" : wanted == "i" ? "INTEGER" : "REAL")"
            }
        }
        return nil
    }

    /// A journal row sound when it is exactly what the store writes for the event its
    /// own JSON decodes to: same sequence, id, time (ms), type, change id, and the
    /// event text encoded again byte for byte.
    static func journal(_ row: [Value], original: [Value]) -> String? {
        if let problem = classes(row, "itittt", original: original) { return problem }
        guard case .text(let bytes) = row[5], let text = String(validating: bytes, as: UTF8.self) else { return "event not text" }
        let envelope: EventEnvelope
        do {
            envelope = try CloudEventFormat.decode(text)
        } catch {
            return "event does not decode: \(error)"
        }
        let expected: [Value] = [
            .integer(envelope.sequence), .text(Array(envelope.id.description.utf8)),
            .integer(Int64((envelope.time.timeIntervalSince1970 * 1000).rounded())),
            .text(Array(envelope.event.kind.cloudEventType.utf8)), .text(Array(envelope.changeID.description.utf8)),
            .text(Array(CloudEventFormat.encode(envelope).utf8)),
        ]
        let names = StoreTruth.journalColumns.components(separatedBy: ", ")
        if let column = row.indices.first(where: { row[$0] != expected[$0] }) {
            return "column \(names[column]) \(row[column]) disagrees with the event's JSON (\(expected[column]))"
        }
        return nil
    }
}

extension [UInt8] {
    /// Whether the bytes hold U+FFFD (EF BF BD), what a lossy UTF-8 decoding puts in.
    var hasReplacement: Bool {
        guard count >= 3 else { return false }
        return (0...(count - 3)).contains { self[$0] == 0xEF && self[$0 + 1] == 0xBF && self[$0 + 2] == 0xBD }
    }
}
