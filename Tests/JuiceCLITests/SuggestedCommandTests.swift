import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// A command a message suggests can be pasted into a shell as it is: a subscriber's
/// name is quoted for the shell when it needs it (`ShellWord`).
@Suite(.tags(.unit)) struct SuggestedCommandTests {
    @Test func namesAreQuotedForTheShellWhenNeeded() {
        #expect(ShellWord.quoted("hook") == "hook")
        #expect(ShellWord.quoted("central-hook_2") == "central-hook_2")
        #expect(ShellWord.quoted("망고") == "망고")
        #expect(ShellWord.quoted("my hook") == "'my hook'")
        #expect(ShellWord.quoted("it's") == #"'it'\''s'"#)
        #expect(ShellWord.quoted("a$(x)") == "'a$(x)'")
        #expect(ShellWord.quoted("*") == "'*'")
        #expect(ShellWord.quoted("") == "''")
    }

    @Test func theRetryCommandsQuoteTheName() {
        let disabled = Catalog.Delivery.disabled("my hook", reason: "410 Gone")
        #expect(disabled.english.contains("`juice subscribers retry 'my hook'`"), "\(disabled.english)")
        #expect(disabled.korean.contains("`juice subscribers retry 'my hook'`"), "\(disabled.korean)")
        #expect(disabled.english.hasPrefix("my hook: "), "the name as itself where it is not a command")
    }
}
