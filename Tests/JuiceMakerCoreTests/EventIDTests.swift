import Foundation
import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

@Suite("Event ids (UUIDv7)", .tags(.unit))
struct EventIDTests {
    private func checkShape(_ id: EventID) {
        #expect(id.version == 7)
        #expect(id.low >> 62 == 0b10, "RFC 9562 variant")
    }

    @Test("100,000 ids in one millisecond: version 7, variant, strictly increasing, unique")
    func sameMillisecond() {
        var generator = EventIDGenerator()
        let milliseconds: UInt64 = 1_795_235_029_123
        var previous: EventID?
        var seen = Set<EventID>()
        for _ in 0..<100_000 {
            let id = generator.next(unixMilliseconds: milliseconds)
            checkShape(id)
            #expect(id.unixMilliseconds >= milliseconds)
            if let previous, !(previous < id) {
                Issue.record("\(id) does not follow \(previous)")
                break
            }
            previous = id
            seen.insert(id)
        }
        #expect(seen.count == 100_000)
    }

    @Test("ids follow the clock, and keep increasing when it steps back")
    func clock() {
        var generator = EventIDGenerator()
        let first = generator.next(unixMilliseconds: 1_000)
        #expect(first.unixMilliseconds == 1_000)
        let later = generator.next(unixMilliseconds: 2_000)
        #expect(later.unixMilliseconds == 2_000)
        let stepBack = generator.next(unixMilliseconds: 1_500)
        #expect(later < stepBack)
        var ids = [first, later, stepBack]
        for step in 0..<100_000 {
            ids.append(generator.next(unixMilliseconds: 3_000 + UInt64(step / 7)))
        }
        for id in ids { checkShape(id) }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(ids).count == ids.count)
    }

    @Test("two generators make different ids")
    func seeding() {
        var one = EventIDGenerator()
        var two = EventIDGenerator()
        let a = (0..<100).map { _ in one.next(unixMilliseconds: 42) }
        let b = (0..<100).map { _ in two.next(unixMilliseconds: 42) }
        #expect(Set(a).isDisjoint(with: b))
    }

    @Test("the text form is lowercase 8-4-4-4-12 and parses back, in either case")
    func textForm() throws {
        var generator = EventIDGenerator()
        for step in 0..<1_000 {
            let id = generator.next(unixMilliseconds: UInt64(step))
            let text = id.description
            #expect(text.count == 36)
            #expect(text == text.lowercased())
            #expect(text.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
            #expect(text.dropFirst(14).first == "7")
            #expect(EventID(text) == id)
            #expect(EventID(text.uppercased()) == id)
        }
        let known = try #require(EventID("0192f3a4-5b6c-7d8e-9f01-23456789abcd"))
        #expect(known.high == 0x0192_f3a4_5b6c_7d8e)
        #expect(known.low == 0x9f01_2345_6789_abcd)
        #expect(known.unixMilliseconds == 0x0192_f3a4_5b6c)
    }

    @Test("every byte at every digit position: a hex digit of either case parses to its value, anything else is no id")
    func everyByteAtEveryDigit() throws {
        let base = Array("0192f3a4-5b6c-7d8e-9f01-23456789abcd".utf8)
        let digitPositions = (0..<36).filter { ![8, 13, 18, 23].contains($0) }
        let hexDigits = Array("0123456789abcdef".utf8)
        for position in digitPositions {
            for byte in UInt8.min...UInt8.max {
                var text = base
                text[position] = byte
                let parsed = text.withUnsafeBufferPointer { EventID(utf8: $0) }
                let lower = (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) ? byte + 32 : byte
                guard let value = hexDigits.firstIndex(of: lower) else {
                    #expect(parsed == nil, "byte \(byte) at \(position)")
                    continue
                }
                var expected = base
                expected[position] = hexDigits[value]
                let id = try #require(parsed, "byte \(byte) at \(position)")
                #expect(id.description == String(decoding: expected, as: UTF8.self))
                #expect(id.withCString { String(cString: $0) } == id.description)
            }
        }
    }

    @Test(
        "malformed text is not an id",
        arguments: [
            "", "0192f3a4-5b6c-7d8e-9f01-23456789abc", "0192f3a4-5b6c-7d8e-9f01-23456789abcde",
            "0192f3a45b6c-7d8e-9f01-23456789abcd-", "0192f3a4-5b6c-7d8e-9f01-23456789abcg",
            "0192f3a4_5b6c_7d8e_9f01_23456789abcd", "0192f3a45b6c7d8e9f0123456789abcd",
        ])
    func malformed(text: String) {
        #expect(EventID(text) == nil)
    }
}

@Suite("Event ids increase in journal order, whoever writes", .tags(.unit))
struct JournalOrderIDTests {
    @Test("two makers on one store (two processes' view) alternating within milliseconds: ids strictly increase")
    func twoWritersAlternate() throws {
        let store = InMemoryStore(initialStock: Stock(repeating: 1_000))
        let first = JuiceMaker(store: store)
        let second = JuiceMaker(store: store)
        for round in 0..<2_000 {
            let maker = round.isMultiple(of: 2) ? first : second
            if round.isMultiple(of: 4) { try maker.add(1, of: .kiwi) } else { try maker.remove(1, of: .kiwi) }
        }
        let journal = try store.events(after: 0, limit: Int.max)
        #expect(journal.count == 2_000)
        let backwards = zip(journal, journal.dropFirst()).filter { $1.id <= $0.id }.map { "\($1.sequence)" }
        #expect(backwards == [])
    }

    @Test("an id after another writer's later id continues from it, also from an earlier clock")
    func continuesFromTheLastID() {
        var other = EventIDGenerator()
        var mine = EventIDGenerator()
        var last = other.next(unixMilliseconds: 1_700_000_000_500)
        for step in 0..<5_000 {
            // Mine lags up to 3 ms behind the other writer's clock.
            let id = mine.next(unixMilliseconds: 1_700_000_000_497 + UInt64(step % 4), after: last)
            #expect(id > last)
            #expect(id.version == 7)
            last = step.isMultiple(of: 3) ? other.next(unixMilliseconds: 1_700_000_000_500, after: id) : id
        }
    }

    @Test("the store refuses an id that does not increase (a bug in the caller) and writes nothing")
    func storeRefusesABackwardID() throws {
        let store = InMemoryStore()
        let maker = JuiceMaker(store: store)
        try maker.add(1, of: .kiwi)
        let before = try store.events(after: 0, limit: Int.max)
        #expect(throws: StoreError.self) {
            try store.commit { current, position in
                StoreChange(
                    stock: current,
                    events: [
                        EventEnvelope(
                            sequence: position.nextSequence, id: EventID(high: 0, low: 1), time: Date(),
                            source: "test", changeID: EventID(high: 0, low: 1),
                            event: .stockChanged(fruit: .kiwi, from: 11, to: 11, reason: .edit))
                    ])
            }
        }
        #expect(try store.events(after: 0, limit: Int.max) == before)
    }
}
