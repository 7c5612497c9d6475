import Foundation
import Testing

/// A value handed to another thread that only that thread uses meanwhile.
private struct Handed<Value>: @unchecked Sendable {
    let value: Value
}

extension JuiceSandbox {
    /// `run(_:)` (or `run(_:input:)`) on a thread of its own, awaited: the test does not
    /// hold one of the cooperative pool's threads (as many as cores, two on the build
    /// machine) while the process runs, so the async delivery tests running beside it
    /// keep their threads. The sandbox is used by this test only.
    @discardableResult
    func running(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) async throws -> JuiceRun {
        let sandbox = Handed(value: self)
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        if let input { return try sandbox.value.run(arguments, input: input) }
                        return try sandbox.value.run(arguments, environment: extra)
                    })
            }.start()
        }
    }

    /// `stock(_:)` off the pool: fruit id → quantity.
    func stockNow() async throws -> [String: Int] {
        let result = try await running(["stock", "--json"])
        #expect(result.status == 0, "juice stock failed: \(result.stderr)")
        return (try result.json() as? [String: Int]) ?? [:]
    }
}
