import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// Tables line up in terminal cells, whatever the script.
@Suite(.tags(.unit)) struct TableLayoutTests {
    @Test(arguments: ["☕cafe", "𠀀ext", "딸기", "e\u{301}te", "🍓", "❤️", "a\u{1B}b"])
    func secondColumnStartsInTheSameCell(name: String) {
        let lines = TableLayout.render([[name, "1"], ["x", "2"], ["long-name", "3"]]).split(separator: "\n")
        let starts = lines.map { line in TerminalText.width(of: String(line.dropLast())) }
        #expect(Set(starts).count == 1, "\(lines)")
        #expect(!lines[0].contains("\u{1B}"))
    }
}
