import Foundation
import JuiceMakerCore
import Testing

/// What tests ask a sandbox's store through `juice` itself.
extension JuiceSandbox {
    /// Runs `juice stock --json` and returns fruit id → quantity.
    package func stock(_ extra: [String] = []) throws -> [String: Int] {
        Self.quantities(try run(["stock", "--json"] + extra))
    }

    /// `stock(_:)` off the pool: fruit id → quantity.
    package func stockNow() async throws -> [String: Int] {
        Self.quantities(try await running(["stock", "--json"]))
    }

    private static func quantities(_ result: ProgramRun) -> [String: Int] {
        #expect(result.status == 0, "juice stock failed: \(result.stderr)")
        return (try? result.json() as? [String: Int]) ?? [:]
    }

    /// The journal as CloudEvents objects (`juice events --json`), oldest first.
    package func journal() throws -> [[String: Any]] {
        let result = try run(["events", "--json"])
        #expect(result.status == 0, "juice events failed: \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Every event of the journal that `juice events --json` with `options` shows,
    /// decoded, oldest first; throws when it fails or prints a line that is not one.
    package func events(_ options: [String] = []) throws -> [EventEnvelope] {
        let result = try run(["events", "--json", "--limit", "100000"] + options)
        guard result.status == 0 else { throw SandboxError("juice events exited \(result.status): \(result.stderr)") }
        return try result.stdout.split(separator: "\n").map { try CloudEventFormat.decode(String($0)) }
    }

    /// `events(_:)` off the pool: the ids, oldest first.
    package func eventIDs(_ options: [String] = []) async throws -> [String] {
        try await offPool { try self.events(options).map(\.id.description) }
    }
}

/// Why a sandbox could not answer.
package struct SandboxError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
