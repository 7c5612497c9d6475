#if canImport(NATSPlugin)
import JuiceMakerCore
import Testing
@testable import NATSPlugin

/// `PubAcks` keeps outstanding publishes in publish order: whatever order the PubAcks
/// come back in, each waiter gets its own outcome, once.
@Suite struct PubAcksTests {
    private static func id(_ number: Int) -> EventID { EventID(high: 0x0190_0000_0000_7000, low: UInt64(number)) }

    /// Whether an outcome was taken.
    private static func taken(_ outcome: PubAckOutcome?) -> Bool { outcome != nil }

    @Test func acksInAnyOrderReachTheirOwnWaiter() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let acks = PubAcks()
            let count = Int.random(in: 1...300, using: &generator)
            for number in 0..<count { acks.expect(Self.id(number)) }
            // Acks come back shuffled; the odd ones as duplicates.
            for number in (0..<count).shuffled(using: &generator) {
                acks.record(Self.id(number), .stored(duplicate: number % 2 == 1))
            }
            for number in 0..<count {
                guard case .stored(let duplicate) = acks.wait(for: Self.id(number), until: .now) else {
                    Issue.record("no outcome for \(number) of \(count)")
                    continue
                }
                #expect(duplicate == (number % 2 == 1))
            }
            // Each outcome is taken once.
            #expect(!Self.taken(acks.wait(for: Self.id(0), until: .now)))
        }
    }

    @Test func aFollowerThatWaitsAsItPublishesKeepsEveryOutcome() {
        // Publish ahead, wait for the oldest, publish more: the pattern of the `nats`
        // subscriber, over many times the compaction threshold.
        let acks = PubAcks()
        var published = 0
        var awaited = 0
        while awaited < 5_000 {
            while published - awaited < 200 {
                acks.expect(Self.id(published))
                published += 1
            }
            for number in awaited..<min(published, awaited + 150) { acks.record(Self.id(number), .stored(duplicate: false)) }
            guard case .stored = acks.wait(for: Self.id(awaited), until: .now) else {
                Issue.record("no outcome for \(awaited)")
                return
            }
            awaited += 1
        }
    }

    @Test func forgottenPublishesGetNoOutcome() {
        let acks = PubAcks()
        for number in 0..<10 { acks.expect(Self.id(number)) }
        acks.forget(Self.id(9))
        acks.forget(Self.id(4))
        acks.record(Self.id(4), .stored(duplicate: false))
        acks.record(Self.id(9), .stored(duplicate: false))
        acks.record(Self.id(5), .stored(duplicate: true))
        #expect(!Self.taken(acks.wait(for: Self.id(4), until: .now)))
        #expect(!Self.taken(acks.wait(for: Self.id(9), until: .now)))
        guard case .stored(duplicate: true) = acks.wait(for: Self.id(5), until: .now) else {
            Issue.record("5 lost its outcome")
            return
        }
        acks.forgetAll()
        acks.record(Self.id(6), .stored(duplicate: false))
        #expect(!Self.taken(acks.wait(for: Self.id(6), until: .now)))
    }
}
#endif
