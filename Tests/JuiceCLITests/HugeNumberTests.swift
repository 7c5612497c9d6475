import Foundation
import JuiceTestSupport
import Testing

/// Numbers written as digits but too large (also beyond 64 bits) are bad values (65)
/// that name the limit, never "not a whole number" (64), and change nothing.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct HugeNumberTests {
    private static let huge = "99999999999999999999"

    @Test(arguments: [
        (["stock", "add", "kiwi", huge], "'99999999999999999999' for '<n>' is above 1,000,000"),
        (["stock", "add", "kiwi", "9223372036854775807"], "'9223372036854775807' for '<n>' is above 1,000,000"),
        (["stock", "remove", "kiwi", huge], "'99999999999999999999' for '<n>' is above 1,000,000"),
        (["stock", "set", "mango=1", "kiwi=\(huge)"], "'99999999999999999999' for 'kiwi=' is above 1,000,000"),
        (["order", "banana", "--count", huge], "at most 500,000"),
        (["events", "--limit", huge], "'99999999999999999999' for '--limit' is above 9,223,372,036,854,775,807"),
        (["events", "--since", huge], "'99999999999999999999' for '--since' is above 9,223,372,036,854,775,807"),
        (["watch", "--since", huge], "'99999999999999999999' for '--since' is above 9,223,372,036,854,775,807"),
        (["report", "picklist", "--target", huge], "'99999999999999999999' for '--target' is above 1,000,000"),
        (["report", "--since", huge + "h"], "is out of range; use from 1h up to 3650d"),
        (["stock", "add", "kiwi", "-" + huge], "is below 1"),
        (["events", "--since", "-" + huge], "is below 0"),
    ])
    func hugeValuesExit65NamingTheMaximum(arguments: [String], message: String) async throws {
        let sandbox = try JuiceSandbox()
        try await sandbox.running(["stock"])
        let before = sandbox.storeBytes()
        let result = try await sandbox.running(arguments)
        #expect(result.status == 65, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("not a whole number"))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(sandbox.storeBytes() == before)
    }

    @Test func koreanNamesTheMaximumToo() async throws {
        let result = try await JuiceSandbox(language: "ko_KR.UTF-8").running(["stock", "add", "kiwi", Self.huge])
        #expect(result.status == 65)
        #expect(result.stderr.contains("최대 1,000,000보다 큽니다"), "\(result.stderr)")
    }

    /// A sum above the maximum is reported as the real sum, never a saturated one.
    @Test func aSumAboveTheMaximumIsTheRealSum() async throws {
        let sandbox = try JuiceSandbox()
        try await sandbox.running(["stock"])
        let before = sandbox.storeBytes()
        let result = try await sandbox.running(["stock", "add", "kiwi", "999991"])
        #expect(result.status == 65)
        #expect(result.stderr == "Error: kiwi would be 1,000,001, above the maximum of 1,000,000; use a smaller amount.\n", "\(result.stderr)")
        #expect(sandbox.storeBytes() == before)
        #expect(try await sandbox.running(["stock", "add", "kiwi", "999990"]).status == 0)
        #expect(try await sandbox.stockNow()["kiwi"] == 1_000_000)
    }

    @Test func theScreensNameTheLimitToo() async throws {
        let sandbox = try JuiceSandbox()
        let edit = try await sandbox.running(
            ["stock", "edit"], input: "kiwi \(Self.huge)\n+ kiwi \(Self.huge)\n+ kiwi 9223372036854775807\ncancel\n")
        let errors = edit.stderr.split(separator: "\n")
        #expect(errors.count == 3, "\(edit.stderr)")
        #expect(errors.prefix(2).allSatisfy { $0.contains("'99999999999999999999' is above the maximum of 1,000,000") }, "\(edit.stderr)")
        #expect(
            errors.last?.contains("cannot add 9,223,372,036,854,775,807 kiwi: that alone is above the maximum of 1,000,000") == true, "\(edit.stderr)"
        )
        let shell = try await sandbox.running(["shell"], input: "\(Self.huge)\nq\n")
        #expect(shell.stderr == "Error: there is no juice number 99999999999999999999; choose 1 to 7, or type a name.\n", "\(shell.stderr)")
        #expect(try await sandbox.running(["events", "--json"]).stdout.isEmpty, "nothing journaled")
    }
}
