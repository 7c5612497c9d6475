import JuiceDelivery
import JuiceMakerCore
import JuiceTestSupport
import Testing

/// Who a short command hands delivery on for (`DeliveryHandOff.look`): a subscriber with
/// events of its kinds after its cursor, not waiting for a retry, whose lease is free.
/// The others are left to whoever holds their lease, or to their retry's time; a failing
/// one is reported either way.
@Suite(.tags(.unit)) struct DeliveryHandOffTests {
    @Test func onlyASubscriberWithWorkAndAFreeLeaseIsDue() throws {
        let rig = Rig.delivery()
        try rig.maker.make(.banana)  // stockChanged, juiceMade
        let last = try rig.store.lastSequence()
        let now = 1_750_000_000.0
        let subscribers = [
            DeliveryHandOff.Subscriber(name: "pending", kinds: nil),
            DeliveryHandOff.Subscriber(name: "caught-up", kinds: nil),
            DeliveryHandOff.Subscriber(name: "held", kinds: nil),
            DeliveryHandOff.Subscriber(name: "other-kind", kinds: [.orderFailed]),
            DeliveryHandOff.Subscriber(name: "waiting", kinds: nil),
            DeliveryHandOff.Subscriber(name: "due-again", kinds: nil),
            DeliveryHandOff.Subscriber(name: "disabled", kinds: nil),
        ]
        try rig.store.setCursor(named: "caught-up", to: last)
        let held = try #require(try rig.store.takeDeliveryLease(for: "held"))
        defer { held.release() }
        try rig.store.setRetryState(
            DeliveryRetryState(sequence: 1, attempts: 2, nextAttemptAt: now + 60, lastError: "HTTP 500"), for: "waiting")
        try rig.store.setRetryState(
            DeliveryRetryState(sequence: 1, attempts: 2, nextAttemptAt: now - 1, lastError: "HTTP 500"), for: "due-again")
        try rig.store.setRetryState(
            DeliveryRetryState(sequence: 1, attempts: 1, nextAttemptAt: now, lastError: "410 Gone", disabled: true), for: "disabled")

        let (due, failing) = try DeliveryHandOff.look(at: subscribers, journal: rig.store, now: now)
        #expect(due == ["pending", "due-again"])
        let failingNames = failing.compactMap { report -> String? in
            if case .failing(let name, let waiting, _) = report, waiting == last { name } else { nil }
        }
        #expect(failingNames == ["waiting", "due-again", "disabled"])
        // Looking takes no lease for good: each due one is free again for the run it starts.
        for name in due {
            let lease = try #require(try rig.store.takeDeliveryLease(for: name), "\(name)")
            lease.release()
        }
    }
}
