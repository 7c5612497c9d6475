import FleetConfiguration
import FleetReaders
import FuzzSupport
import JuiceMakerCore

/// A stream message from another machine, read as the fleet's readers read it: its
/// first line is the subject, the rest the body. Never a trap; a message taken is
/// exactly what its own machine would have published (the subject its event goes to,
/// a machine name the subject and source agree on, possible values), and a refusal's
/// line is bounded however long the subject and reason.
func fuzz(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let split = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let subject = String(split[0])
    let body = split.count > 1 ? String(split[1]) : ""
    for prefix in ["juicemaker", "acme.vending"] {
        switch FleetEvent.check(text: body, subject: subject, prefix: prefix, maxBytes: Int.max) {
        case .success(let (machine, envelope)):
            precondition(Fleet.isMachineName(machine), "taken from a machine with an impossible name: \(machine)")
            precondition(Fleet.subject(prefix: prefix, machine: machine, event: envelope.event) == subject, "taken on another subject")
            precondition(FleetEvent.impossibility(envelope.event) == nil, "taken with impossible values")
            if envelope.source != EventEnvelope.defaultSource {
                precondition(Fleet.machine(fromSource: envelope.source) == machine, "taken with a source of another machine")
            }
        case .failure(let reason):
            let line = FleetEvent.Skipped(sequence: .max, subject: subject, reason: reason.description).line
            precondition(line.count <= 460, "an unbounded refusal line: \(line.count) characters")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
