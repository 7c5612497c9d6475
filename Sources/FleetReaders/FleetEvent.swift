import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import NATSClient

/// A stream message read as one machine's event, checked: what every fleet reader
/// (`juice fleet watch`, `fleet stock`, `fleet deliver`) takes from the stream, which
/// other machines write and which is therefore untrusted.
///
/// A message is taken only when its body is a JuiceMaker CloudEvent, its subject is
/// exactly the one its event is published to (`<prefix>.<machine>.<kind>.<subject>`,
/// the machine the one its `source` names, the kind and the fruit or juice its own),
/// and its values are possible (quantities 0…1,000,000, counts 1 up to the largest
/// order, a stock change in the direction its reason says). The check is of
/// consistency, not of who published: NATS permissions decide that.
package struct FleetEvent: Sendable {
    /// The machine, from the subject (and the source, which agrees).
    package let machine: String
    package let envelope: EventEnvelope
    /// The stream sequence.
    package let sequence: UInt64
    /// When the stream stored it (the server's clock, not the machine's).
    package let stored: Date?

    /// A message a reader skipped, and why.
    package struct Skipped: Error, Sendable {
        package let sequence: UInt64
        /// The subject as it came (escape before showing).
        package let subject: String
        package let reason: String

        package init(sequence: UInt64, subject: String, reason: String) {
            self.sequence = sequence
            self.subject = subject
            self.reason = reason
        }

        /// `stream sequence 7, subject juicemaker.x.stock.changed.kiwi: <reason>` (raw:
        /// escape before showing; the subject and reason cut to 200 characters).
        package var line: String {
            "stream sequence \(sequence), subject \(ConsumerJournal.excerpt(subject)): \(ConsumerJournal.excerpt(reason))"
        }
    }

    /// `message` read as an event published under `prefix`, or why it is skipped.
    /// A message larger than `maxBytes` is skipped unread.
    package static func read(_ message: NATSMessage, prefix: String, maxBytes: Int) -> Result<FleetEvent, Skipped> {
        let meta = message.metadata
        let sequence = meta?.streamSequence ?? 0
        let subject = message.subject
        switch check(text: message.text, subject: subject, prefix: prefix, maxBytes: maxBytes) {
        case .success(let (machine, envelope)):
            return .success(FleetEvent(machine: machine, envelope: envelope, sequence: sequence, stored: meta?.stored))
        case .failure(let reason):
            return .failure(Skipped(sequence: sequence, subject: subject, reason: reason.description))
        }
    }

    /// A stream sequence the server gave, as an event's sequence: nil for one past
    /// `EventEnvelope.greatestSequence` (no stream of events gets there) or 0.
    package static func sequence(_ streamSequence: UInt64) -> Int64? {
        guard let sequence = Int64(exactly: streamSequence), sequence > 0, sequence <= EventEnvelope.greatestSequence else { return nil }
        return sequence
    }

    /// The machine and event of a message with `text` on `subject`, or why it is not one
    /// (also when it is larger than `maxBytes`: not read at all).
    package static func check(text: String, subject: String, prefix: String, maxBytes: Int) -> Result<(String, EventEnvelope), WireFormatError> {
        let size = text.utf8.count
        guard size <= maxBytes else {
            return .failure(
                WireFormatError("\(EnglishCount.of(size, "byte")), above fleet.maxMessageBytes \(maxBytes) (a machine's event is well under 1 KiB)"))
        }
        let envelope: EventEnvelope
        do throws(WireFormatError) {
            envelope = try CloudEventFormat.decode(text)
        } catch {
            return .failure(WireFormatError("not a JuiceMaker CloudEvent: \(error.description)"))
        }
        let tokens = subject.split(separator: ".", omittingEmptySubsequences: false)
        let prefixCount = prefix.split(separator: ".").count
        guard tokens.count > prefixCount, Fleet.isMachineName(String(tokens[prefixCount])) else {
            return .failure(WireFormatError("the subject names no machine (expected \(prefix).<machine>.<kind>.<fruit or juice>)"))
        }
        let machine = String(tokens[prefixCount])
        // Events committed before machines had names carry the bare source; the subject names the machine then.
        if envelope.source != EventEnvelope.defaultSource {
            guard let named = Fleet.machine(fromSource: envelope.source) else {
                return .failure(WireFormatError("its source \"\(envelope.source)\" names no machine (expected /juice-maker/\(machine))"))
            }
            guard named == machine else {
                return .failure(WireFormatError("its source names machine \(named), its subject machine \(machine)"))
            }
        }
        let expected = Fleet.subject(prefix: prefix, machine: machine, event: envelope.event)
        guard subject == expected else {
            return .failure(WireFormatError("its subject does not match its event (\(expected) would)"))
        }
        if let impossible = impossibility(envelope.event) { return .failure(WireFormatError(impossible)) }
        return .success((machine, envelope))
    }

    /// Why `event` cannot have happened on a machine, or `nil` (`JuiceMakerEvent.impossibility`).
    package static func impossibility(_ event: JuiceMakerEvent) -> String? { event.impossibility }
}
