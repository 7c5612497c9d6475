import Foundation
import JuiceTestSupport
import Testing

/// `--json` output of every command parses and holds the right values, and the
/// notifier's human lines never reach stdout.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct JSONOutputTests {
    @Test func orderMadeIsTheTypedResult() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["order", "mango-kiwi", "--json"])
        #expect(result.status == 0)
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["juice"] as? String == "mango-kiwi")
        #expect(object["count"] as? Int == 1)
        #expect(object["result"] as? String == "made")
        #expect(object["consumed"] as? [String: Int] == ["mango": 2, "kiwi": 1])
        #expect(object["stock"] as? [String: Int] == ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 9, "mango": 8])
    }

    @Test func orderInsufficientListsShortagesAndExits1() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["order", "strawberry", "--count", "2", "--json"])
        #expect(result.status == 1)
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["result"] as? String == "insufficient")
        #expect(object["shortages"] as? [String: Int] == ["strawberry": 22])
        #expect(object["stock"] as? [String: Int] == ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 10, "mango": 10])
    }

    @Test func stockIsAnObjectOfQuantities() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["stock", "add", "pineapple", "3", "--json"])
        #expect(result.status == 0)
        #expect(try result.json() as? [String: Int] == ["strawberry": 10, "banana": 10, "pineapple": 13, "kiwi": 10, "mango": 10])
    }

    @Test func menuIsAnArray() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["menu", "--json", "--in-memory"])
        #expect(result.status == 0)
        let items = try #require(try result.json() as? [[String: Any]])
        #expect(items.count == 7)
        let strawberry = try #require(items.first { $0["juice"] as? String == "strawberry" })
        #expect(strawberry["available"] as? Int == 0)
        #expect(strawberry["recipe"] as? [String: Int] == ["strawberry": 16])
        let banana = try #require(items.first { $0["juice"] as? String == "banana" })
        #expect(banana["available"] as? Int == 5)
    }

    @Test func eventsAreCloudEventsJSONLines() throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["order", "banana"])
        try sandbox.run(["order", "strawberry"])
        let result = try sandbox.run(["events", "--json"])
        #expect(result.status == 0)
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(
            events.map { $0["type"] as? String } == [
                "juicemaker.juice.made", "juicemaker.stock.changed", "juicemaker.order.failed",
            ])
        #expect(events.allSatisfy { $0["specversion"] as? String == "1.0" })
        let failed = try sandbox.run(["events", "--json", "--type", "orderFailed"])
        #expect(failed.stdout.split(separator: "\n").count == 1)
        let since = try sandbox.run(["events", "--json", "--since", "2"])
        #expect(since.stdout.split(separator: "\n").count == 1)
        let last = try sandbox.run(["events", "--json", "--limit", "1"])
        #expect(last.stdout.contains("juicemaker.order.failed"))
    }

    @Test func subscribersAndConfigAreJSON() throws {
        let sandbox = try JuiceSandbox()
        let subscribers = try sandbox.run(["subscribers", "--json"])
        let list = try #require(try subscribers.json() as? [[String: Any]])
        #expect(list.map { $0["type"] as? String } == ["logger", "cli-notifier"])
        let show = try sandbox.run(["config", "show", "--json"])
        let object = try #require(try show.json() as? [String: Any])
        #expect(object["file"] is NSNull)
        let check = try sandbox.run(["config", "check", "--json"])
        #expect((try check.json() as? [String: Any])?["valid"] as? Bool == true)
    }

    @Test func notifierLinesStayOffStdoutWithJSON() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["order", "banana", "--json"])
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(!result.stdout.contains("Enjoy"))
    }
}
