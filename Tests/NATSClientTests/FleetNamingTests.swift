import FleetConfiguration
import JuiceMakerCore
import JuiceTestSupport
import Testing

/// The subject scheme and machine names: no server needed, so these run in every build.
@Suite(.tags(.unit))
struct FleetNamingTests {
    @Test func subjectsFollowTheScheme() {
        let kiwi = JuiceMakerEvent.stockChanged(fruit: .kiwi, from: 10, to: 9, reason: .order)
        #expect(Fleet.subject(prefix: "juicemaker", machine: "shop-1", event: kiwi) == "juicemaker.shop-1.stock.changed.kiwi")
        let made = JuiceMakerEvent.juiceMade(juice: .mangoKiwi, count: 1, consumed: FruitAmounts())
        #expect(Fleet.subject(prefix: "juicemaker", machine: "shop-1", event: made) == "juicemaker.shop-1.juice.made.mango-kiwi")
        #expect(Fleet.filter(prefix: "acme.juice", machine: nil, kind: .orderFailed) == "acme.juice.*.order.failed.*")
    }

    @Test func machineNamesAreOneSubjectToken() {
        #expect(Fleet.isMachineName("shop-1_a"))
        for bad in ["", "shop.1", "shop 1", "shop*", "shop>", "café"] { #expect(!Fleet.isMachineName(bad)) }
        #expect(Fleet.machineName(fromHost: "Shop 1.example.com") == "Shop-1")
        #expect(Fleet.machineName(fromHost: "") == "juice")
        #expect(Fleet.machine(fromSource: "/juice-maker/shop-1") == "shop-1")
        #expect(Fleet.machine(fromSource: "/juice-maker") == nil)
    }

    @Test func urlsAreNATSHostPorts() throws {
        #expect(try Fleet.servers("nats://127.0.0.1:4222").get() == ["nats://127.0.0.1:4222"])
        #expect(try Fleet.servers("nats://a:1, b:2").get() == ["nats://a:1", "nats://b:2"])
        for bad in ["http://a:1", "nats://", "nats://a:1/path", "nats://a:99999", ""] {
            if case .success = Fleet.servers(bad) { Issue.record("\(bad) accepted") }
        }
    }
}
