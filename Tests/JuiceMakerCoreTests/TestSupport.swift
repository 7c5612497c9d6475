import Dispatch
import Foundation
import JuiceMakerTesting
import Testing
@testable import JuiceMakerCore

/// A maker over a fresh in-memory store, with a synchronous recorder on its bus.
struct Fixture {
    let store: InMemoryStore
    let maker: JuiceMaker
    let recorder: RecordingSubscriber

    init(stock: Stock = Stock(repeating: 10)) throws {
        store = InMemoryStore(initialStock: stock)
        maker = JuiceMaker(store: store)
        recorder = try RecordingSubscriber(subscribingTo: maker)
    }

    var journal: [EventEnvelope] {
        get throws { try store.events(after: 0, limit: Int.max) }
    }

    /// Runs `body`, which must be refused with `error`, and checks it changed nothing:
    /// same stock, same journal, nothing on the bus.
    func expectRefused(
        _ error: JuiceMakerError, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws(JuiceMakerError) -> Void
    ) throws {
        let stock = try maker.stock()
        let journal = try self.journal
        let heard = recorder.count
        #expect(throws: error, sourceLocation: sourceLocation) { try body() }
        #expect(try maker.stock() == stock, sourceLocation: sourceLocation)
        #expect(try self.journal == journal, sourceLocation: sourceLocation)
        #expect(recorder.count == heard, sourceLocation: sourceLocation)
    }
}

extension EventEnvelope {
    /// The stock change this envelope reports, if it is one.
    var stockChange: (fruit: Fruit, from: Int, to: Int, reason: StockChangeReason)? {
        if case let .stockChanged(fruit, from, to, reason) = event { return (fruit, from, to, reason) }
        return nil
    }
}

/// A small deterministic generator (SplitMix64), so a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body(index)` on `count` real threads at once and waits for all of them.
/// Returns `false` if they did not all finish within `seconds` (a deadlock).
@discardableResult
func runThreads(_ count: Int, seconds: Double = 300, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            body(index)
            done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    return done.wait(timeout: .now() + seconds) == .success
}
