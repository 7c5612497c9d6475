import JuiceMakerCore
import JuiceMakerPluginKit

/// `juice completions bash|zsh|fish`: the completion scripts; `juice completions
/// complete -- WORDS…`: what the scripts ask on each Tab.
enum CompletionsGroup: CommandDeclaration {
    static let configuration = CommandConfiguration(
        commandName: "completions",
        abstract: LocalizedText("Print a shell's completion script.", ko: "셸의 자동 완성 스크립트를 출력합니다."),
        subcommands: [BashCompletion.self, ZshCompletion.self, FishCompletion.self, CompleteCommand.self])
}

/// A command that prints one shell's script (`CompletionScripts`).
protocol CompletionScriptCommand: ConfigFreeCommand {
    static var script: String { get }
    init()
}

extension CompletionScriptCommand {
    init(_ invocation: Invocation) throws(CLIError) { self.init() }

    /// The declaration of `juice completions <shell>`: named after the shell, one sentence of help.
    static func declaration(shell: String) -> CommandConfiguration {
        CommandConfiguration(
            commandName: shell, abstract: LocalizedText("Print the \(shell) completion script.", ko: "\(shell) 자동 완성 스크립트를 출력합니다."))
    }

    func run(_ output: any TextSink, registry: PluginRegistry) -> ExitCode {
        output.write(Self.script)
        return .success
    }
}

struct BashCompletion: CompletionScriptCommand {
    static let configuration = declaration(shell: "bash")
    static let script = CompletionScripts.bash
}

struct ZshCompletion: CompletionScriptCommand {
    static let configuration = declaration(shell: "zsh")
    static let script = CompletionScripts.zsh
}

struct FishCompletion: CompletionScriptCommand {
    static let configuration = declaration(shell: "fish")
    static let script = CompletionScripts.fish
}

/// `juice completions complete -- WORDS…`: the candidates for the last word, as the
/// scripts read them (`CompletionScripts`): records each ended by NUL, so a name with a
/// newline is still one offer (a name with NUL cannot be an argument and is not offered).
/// Reads the config (for the durable subscribers' names) but opens no store; `--config`,
/// `--store`, `--in-memory` and `--lang` among the words are honoured (`CompletionSettings`).
struct CompleteCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: LocalizedText(
            "Print what may follow the words given, each ended by NUL (the completion scripts call this).",
            ko: "주어진 단어 다음에 올 수 있는 것을 각각 NUL로 끝내 출력합니다 (자동 완성 스크립트가 부릅니다)."))
    static let needs = CommandNeeds.plugins

    struct Options: CommandOptions {
        let words: Argument<[String]>
        init(_ options: inout OptionList) {
            words = options.arguments(
                "word",
                help: LocalizedText(
                    "The words after juice, the last being the one to complete (after --).",
                    ko: "juice 다음의 단어들, 마지막이 완성할 단어 (-- 다음에)."))
        }
    }

    let words: [String]

    init(_ invocation: Invocation) throws(CLIError) {
        words = try Options(invocation).words.value
    }

    static func impliedGlobalArguments(_ invocation: Invocation) -> [String] {
        // An option given to this command itself stands: given twice it would be refused.
        let given = Set(CommandTable.globalOptions.filter { !invocation.given($0).isEmpty }.map(\.name))
        return CompletionSettings.arguments(in: (try? Options(invocation).words.value) ?? [], besides: given)
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let completer = Completer(root: CommandTable.root, globalOptions: CommandTable.globalOptions)
        // Only durable subscribers have something to retry.
        let reply = completer.reply(words) { session.builtPlugins.filter { $0.durable != nil }.map(\.entry.name) }
        let records: [String]
        switch reply {
        case .files: records = ["files"]
        case .words(let words, let spaceAfter):
            records = [spaceAfter ? "words" : "words-nospace"] + words.filter { !$0.unicodeScalars.contains("\0") }
        }
        session.context.console.standardOutput.write(records.map { $0 + "\0" }.joined())
        return .success
    }
}
