import Testing
@testable import JuiceMakerCore

@Suite("Event ids (UUIDv7)")
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

    @Test("malformed text is not an id", arguments: [
        "", "0192f3a4-5b6c-7d8e-9f01-23456789abc", "0192f3a4-5b6c-7d8e-9f01-23456789abcde",
        "0192f3a45b6c-7d8e-9f01-23456789abcd-", "0192f3a4-5b6c-7d8e-9f01-23456789abcg",
        "0192f3a4_5b6c_7d8e_9f01_23456789abcd", "0192f3a45b6c7d8e9f0123456789abcd",
    ])
    func malformed(text: String) {
        #expect(EventID(text) == nil)
    }
}
