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
