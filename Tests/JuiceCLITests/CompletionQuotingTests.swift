import Foundation
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// Completion offers are data, never code: a real bash, zsh and fish complete the
/// subscribers of the config named by `--config` earlier on the line, and each text the
/// shell would insert, evaluated by that same shell, is exactly one word equal to the
/// name, and running nothing (no `pwned` file appears).
@Suite(.tags(.process), .notInUnitRun, .offPool) struct CompletionQuotingTests {
    /// Subscriber names a hostile config could hold.
    static let names = [
        "plain", "two words", "it's", "say \"hi\"", "a$(touch pwned)b", "`touch pwned`", "*", "line\nbreak",
        "tab\there", "esc\u{1B}[31mred", "back\\slash", "semi;colon&amp", "~home", "!bang", "{a,b}", "망고 hook",
    ]

    private static var config: String {
        let subscribers = names.map { name in
            #"{"type": "command", "name": \#(jsonString(name)), "command": ["/bin/cat"]}"#
        }
        return #"{"subscribers": [\#(subscribers.joined(separator: ", "))]}"#
    }

    private static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The program that completes `line` and prints, for each text the shell would
    /// insert, how many words it evaluates to and the first, each ended by NUL.
    private func program(_ shell: String, line: String, script: String) -> String {
        switch shell {
        case "bash":
            return """
                source '\(script)'
                COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"; COMP_WORDS+=('')
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _juice
                for text in "${COMPREPLY[@]}"; do eval "set -- $text"; printf '%s\\0' "$#" "$1"; done
                """
        case "zsh":
            // compadd is the completion system's: here it quotes what it is given as
            // compadd does (unless -Q), and the test evaluates that.
            return """
                compdef() { :; }
                typeset -ga inserted
                compadd() {
                    local quote=1
                    while [[ "$1" == -* ]]; do
                        case "$1" in --) shift; break ;; -Q) quote=0 ;; -S|-P|-J|-X|-V) shift ;; esac
                        shift
                    done
                    local w; for w in "$@"; do if (( quote )); then inserted+=("${(q)w}"); else inserted+=("$w"); fi; done
                }
                source '\(script)'
                words=(${(z)${:-'\(line)'}} ''); CURRENT=${#words}
                _juice
                for text in "${inserted[@]}"; do eval "set -- $text"; printf '%s\\0' "$#" "$1"; done
                """
        default:
            return """
                source '\(script)'
                for text in (complete -C --escape '\(line)' | string replace -r '\\t.*' '')
                    eval "set -g inserted $text"
                    printf '%s\\0' (count $inserted) "$inserted[1]"
                end
                """
        }
    }

    @Test func settingsTypedEarlierAreCarried() {
        let typed = ["--config", "a b.json", "--lang=ko", "order", "--store", "s.db", "--in-memory", "--quiet", "ma"]
        #expect(CompletionSettings.arguments(in: typed) == ["--config", "a b.json", "--lang=ko", "--store", "s.db", "--in-memory"])
        #expect(CompletionSettings.arguments(in: ["--store", "st"]) == [], "a value still being typed is not carried")
        #expect(CompletionSettings.arguments(in: ["order", "--", "--config", "x", ""]) == [])
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func hostileNamesAreOfferedAsThemselves(_ shell: String) throws {
        guard let path = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: FileManager.default.isExecutableFile) else {
            print("skipped: \(shell) is not installed (apt-get install \(shell))")
            return
        }
        let sandbox = try JuiceSandbox()
        try sandbox.write(Self.config, to: "work/hostile.json")
        try sandbox.write("", to: "work/x1.txt")
        let script = try sandbox.write(try sandbox.run(["completions", shell]).stdout, to: "completion.\(shell)")
        let result = try sandbox.run(
            ["-c", program(shell, line: "juice --config hostile.json subscribers retry ", script: script)], inputFile: "/dev/null",
            environment: ["PATH": (JuiceSandbox.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"], executable: path)
        #expect(result.status == 0, "\(shell): \(result.stderr)")
        let fields = result.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        var offered: [String] = []
        for index in stride(from: 0, to: fields.count - 1, by: 2) {
            #expect(fields[index] == "1", "\(shell) evaluates an offer to \(fields[index]) words: \(fields[index + 1].debugDescription)")
            offered.append(fields[index + 1])
        }
        // fish reads a tab as the start of an offer's description: it leaves such a name out.
        let expected = shell == "fish" ? Self.names.filter { !$0.contains("\t") } : Self.names
        #expect(offered.sorted() == expected.sorted(), "\(shell) offered \(offered.map(\.debugDescription))")
        for file in ["pwned", "work/pwned"] {
            #expect(!FileManager.default.fileExists(atPath: sandbox.file(file)), "\(shell) ran a command from a name")
        }
    }
}
