import Foundation
import JuiceTestSupport
import Testing

/// A config without `subscribers` gets the built-in logger and notifier; `[]` means none.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct DefaultSubscribersTests {
    private func subscribers(_ config: String) throws -> [String] {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(config, to: "juice.json")
        let result = try sandbox.run(["config", "check", "--json", "--config", path])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        return try #require(object["subscribers"] as? [String])
    }

    @Test func anAbsentKeyMeansTheBuiltInSubscribers() throws {
        #expect(try subscribers(#"{"language": "en"}"#) == ["logger", "cli-notifier"])
    }

    @Test func anEmptyListMeansNone() throws {
        #expect(try subscribers(#"{"subscribers": []}"#) == [])
    }
}
