@testable import JuiceCLI
import JuiceMakerCore
import JuiceTestSupport
import Testing

/// `juice store check` shows SQLite's problem reports line by line, escaped: the names in
/// them come from the file, which may be anyone's.
@Suite(.tags(.unit)) struct StoreCheckLinesTests {
    @Test func problemReportsAreShownAsEscapedLines() {
        let reports = ["*** in database main ***\nOn tree page 5 cell 2: row 3 missing from index ix\u{1B}]0;owned\u{7}", "Page 9: never used"]
        let lines = StoreCheckCommand.shown(reports)
        #expect(lines.count == 3)
        #expect(lines[0] == "*** in database main ***" && lines[2] == "Page 9: never used")
        #expect(lines.allSatisfy { line in !line.unicodeScalars.contains { TerminalControl.steers($0) } }, "\(lines)")
        #expect(lines[1].hasPrefix("On tree page 5 cell 2: row 3 missing from index ix"))
    }
}
