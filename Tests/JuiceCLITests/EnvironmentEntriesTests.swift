import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// `juice` reads its environment from `environ` (`JuiceProcess.environment(entries:)`).
@Suite(.tags(.unit)) struct EnvironmentEntriesTests {
    @Test func splitsAtTheFirstEqualsSignByByte() {
        let environment = JuiceProcess.environment(entries: [
            "A=1", "B=x=y", "EMPTY=", "NOEQUALS", "=nameless", "MARK=\u{301}b", "HOME=/root",
        ])
        #expect(environment["A"] == "1")
        #expect(environment["B"] == "x=y")
        #expect(environment["EMPTY"] == "")
        #expect(environment["NOEQUALS"] == nil)
        #expect(environment[""] == "nameless")
        #expect(environment["MARK"] == "\u{301}b", "a value that begins with a combining mark keeps it")
        #expect(environment.count == 6)
    }

    @Test func theFirstOfARepeatedNameCountsAsGetenvReadsIt() {
        #expect(JuiceProcess.environment(entries: ["A=first", "A=second"])["A"] == "first")
    }
}
