import Testing
@testable import JuiceMakerCore
@Test func smoke() throws {
    let store = InMemoryStore()
    let maker = JuiceMaker(store: store)
    let seen = Box()
    _ = try maker.subscribe("t") { seen.add($0) }
    #expect(try maker.make(.mangoKiwi) == .made(consumed: FruitAmounts(kiwi: 1, mango: 2)))
    #expect(try maker.make(.strawberry) == .insufficient(shortages: FruitAmounts(strawberry: 6)))
    for e in try store.events(after: 0, limit: 10) { print(CloudEventFormat.encode(e)); #expect(try CloudEventFormat.decode(CloudEventFormat.encode(e)) == e) }
    #expect(seen.count == 4)
}
import Synchronization
final class Box: Sendable { let m = Mutex<[EventEnvelope]>([]); func add(_ e: EventEnvelope) { m.withLock { $0.append(e) } }; var count: Int { m.withLock { $0.count } } }
