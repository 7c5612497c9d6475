import JuiceMakerCore

/// A command's options and positional arguments, each declared once: a struct whose
/// `init` declares every option and argument on `options` and keeps what that returns,
/// in the order help lists them.
///
///     struct Options: CommandOptions {
///         let limit: Option<Int?>
///         init(_ options: inout OptionList) {
///             limit = options.integer(
///                 "limit", value: "n", in: 1...Int(Int64.max), help: …, belowMinimum: Catalog.Errors.limitTooSmall)
///         }
///     }
///
/// The command's option list is what that `init` declared (`declared`): the parser,
/// `--help`, the man page and completions read it. The command reads each value typed,
/// `try options.limit.value`, from `Options(invocation)`. An `Option` is only made by
/// declaring it on an `OptionList`, so an option the command reads cannot be missing
/// from its list, and there is no list to keep in step. The list is what one run of
/// `init` declares, so `init` declares every option, unconditionally, and does nothing
/// else; the values are read (and refused) in the command's `init`, in its own order.
///
/// No reflection (`Mirror` casts to a protocol on a command's path: start-up rule "no
/// conformance lookups at start", the Performance article of `JuiceMakerCore`).
protocol CommandOptions: Sendable {
    init(_ options: inout OptionList)
}

extension CommandOptions {
    /// The options, each bound to what `invocation` gave it.
    init(_ invocation: Invocation) {
        var options = OptionList(binding: invocation)
        self.init(&options)
    }

    /// The options as declared, bound to no command line (each reads as not given).
    static var unbound: Self {
        var options = OptionList(binding: nil)
        return Self(&options)
    }

    /// What the options declare, in order, for the parser, help and completions.
    static var declared: [OptionSpec] { declarations.specs }

    /// The positional arguments declared, in order, for the parser, help and completions.
    static var declaredArguments: [ArgumentSpec] { declarations.argumentSpecs }

    /// One run of `init` on a list bound to no command line: what it declares.
    private static var declarations: OptionList {
        var options = OptionList(binding: nil)
        _ = Self(&options)
        return options
    }
}

/// The options of a command that has none.
struct NoOptions: CommandOptions {
    init(_ options: inout OptionList) {}
}

/// Where a command's options are declared (`CommandOptions`): each method records the
/// option and returns it, bound to the words the command line gave it (none while only
/// the declarations are read).
struct OptionList {
    /// The options declared so far, in order.
    private(set) var specs: [OptionSpec] = []
    /// The positional arguments declared so far, in order.
    private(set) var argumentSpecs: [ArgumentSpec] = []
    private let invocation: Invocation?

    init(binding invocation: Invocation?) {
        self.invocation = invocation
    }

    /// Records `spec`; the option reads what was given for it with `read`.
    mutating func declare<Value>(
        _ spec: OptionSpec, read: @escaping @Sendable (_ given: [String], _ path: [CommandSpec]) throws(CLIError) -> Value
    ) -> Option<Value> {
        specs.append(spec)
        return Option(spec: spec, given: invocation?.given(spec) ?? [], path: invocation?.path ?? [], read: read)
    }

    /// `--name <value>`, its last value read by `parse`; nil when not given.
    mutating func value<Value>(
        _ name: String, short: Character? = nil, value: String, completion: CompletionKind? = nil, help: LocalizedText,
        parse: @escaping @Sendable (_ text: String, _ path: [CommandSpec]) throws(CLIError) -> Value
    ) -> Option<Value?> {
        declare(OptionSpec(name, short: short, value: value, completion: completion, help: help)) { given, path throws(CLIError) in
            guard let text = given.last else { return nil }
            return try parse(text, path)
        }
    }

    /// `--name <value>` as typed (its last value); nil when not given.
    mutating func text(
        _ name: String, short: Character? = nil, value: String, completion: CompletionKind? = nil, help: LocalizedText
    ) -> Option<String?> {
        self.value(name, short: short, value: value, completion: completion, help: help) { text, _ in text }
    }

    /// `--name <value>` that the command refuses to run without: missing, it is a usage
    /// error naming it (`missing argument '--to <file>'`), before `parse` sees anything.
    mutating func required<Value>(
        _ name: String, value: String, help: LocalizedText,
        parse: @escaping @Sendable (_ text: String, _ path: [CommandSpec]) throws(CLIError) -> Value
    ) -> Option<Value> {
        let spec = OptionSpec(name, value: value, required: true, help: help)
        return declare(spec) { given, path throws(CLIError) in
            guard let text = given.last else { throw .usage(Catalog.Errors.missingArgument(spec.synopsis), path) }
            return try parse(text, path)
        }
    }

    /// `--name <value>`, given any number of times: every value, in order.
    mutating func repeatable(_ name: String, value: String, completion: CompletionKind? = nil, help: LocalizedText) -> Option<[String]> {
        declare(OptionSpec(name, value: value, repeatable: true, completion: completion, help: help)) { given, _ in given }
    }

    /// `--name`, which takes no value: whether it was given.
    mutating func flag(_ name: String, short: Character? = nil, help: LocalizedText) -> Option<Bool> {
        declare(OptionSpec(name, short: short, help: help)) { given, _ in !given.isEmpty }
    }

    /// `--name <n>`: a whole number in `range`, nil when not given. Not digits is a
    /// usage error; digits above the range, or beyond `Int`, a bad value naming the
    /// maximum; a value below it is refused in the command's words (`belowMinimum`).
    mutating func integer(
        _ name: String, value: String, in range: ClosedRange<Int>, help: LocalizedText,
        belowMinimum: @escaping @Sendable (Int) -> LocalizedText
    ) -> Option<Int?> {
        self.value(name, value: value, help: help) { text, path throws(CLIError) in
            let number = try ValueParsing.integer(text, for: "--\(name)", minimum: range.lowerBound, maximum: range.upperBound, path: path)
            guard number >= range.lowerBound else { throw CLIError(.badValue, belowMinimum(number)) }
            return number
        }
    }

    /// `--name <n>`: a whole number whose range the command checks, nil when not given.
    /// Not digits is a usage error; digits beyond `Int` read as its ends (`Int.min`,
    /// `Int.max`), for the command to refuse with the words given (`Option.text`).
    mutating func wholeNumber(_ name: String, value: String, help: LocalizedText) -> Option<Int?> {
        self.value(name, value: value, help: help) { text, path throws(CLIError) in
            switch ValueParsing.reading(text) {
            case nil: throw .usage(Catalog.Errors.notAWholeNumber("--\(name)", text), path)
            case .belowInt: return Int.min
            case .aboveInt: return Int.max
            case .value(let number): return number
            }
        }
    }
}

extension OptionList {
    /// `<name>`: the next positional argument, read by `parse`. The parser has already
    /// refused a command line without it (`missing argument '<juice>'`).
    mutating func argument<Value>(
        _ name: String, completion: CompletionKind = .nothing, help: LocalizedText,
        parse: @escaping @Sendable (_ text: String, _ path: [CommandSpec]) throws(CLIError) -> Value
    ) -> Argument<Value> {
        let spec = ArgumentSpec(name, completion: completion, help: help)
        return declareArgument(spec) { words, path throws(CLIError) in
            guard let text = words.first else { throw .usage(Catalog.Errors.missingArgument(spec.synopsis), path) }
            return try parse(text, path)
        }
    }

    /// `<name>` as typed.
    mutating func argument(_ name: String, completion: CompletionKind = .nothing, help: LocalizedText) -> Argument<String> {
        argument(name, completion: completion, help: help) { text, _ in text }
    }

    /// `<name> ...`: every positional argument from here on (at least one), in order,
    /// each as typed. The last argument a command declares.
    mutating func arguments(_ name: String, completion: CompletionKind = .nothing, help: LocalizedText) -> Argument<[String]> {
        declareArgument(ArgumentSpec(name, repeating: true, completion: completion, help: help)) { words, _ in words }
    }

    /// `<name>`: a subscriber's name, as `juice subscribers` lists it (`retry`, `rewind`,
    /// `acknowledge`).
    mutating func subscriberName() -> Argument<String> {
        argument(
            "name", completion: .subscribers,
            help: LocalizedText("The subscriber's name, as `juice subscribers` lists it.", ko: "`juice subscribers`에 나오는 구독자 이름."))
    }

    /// Records `spec`; the argument reads the words in its place with `read`.
    private mutating func declareArgument<Value>(
        _ spec: ArgumentSpec, read: @escaping @Sendable (_ words: [String], _ path: [CommandSpec]) throws(CLIError) -> Value
    ) -> Argument<Value> {
        let position = argumentSpecs.count
        argumentSpecs.append(spec)
        let words = invocation.map { Array($0.arguments.dropFirst(position)) } ?? []
        return Argument(spec: spec, words: spec.isRepeating ? words : Array(words.prefix(1)), path: invocation?.path ?? [], read: read)
    }
}

/// One declared positional argument, bound to the word (or, repeating, the words) in
/// its place. Made only by `OptionList`, so every argument a command reads is in its
/// list, which the parser, `--help`, the man page and completions read.
struct Argument<Value>: Sendable {
    let spec: ArgumentSpec
    private let words: [String]
    private let path: [CommandSpec]
    private let read: @Sendable ([String], [CommandSpec]) throws(CLIError) -> Value

    fileprivate init(
        spec: ArgumentSpec, words: [String], path: [CommandSpec], read: @escaping @Sendable ([String], [CommandSpec]) throws(CLIError) -> Value
    ) {
        self.spec = spec
        self.words = words
        self.path = path
        self.read = read
    }

    /// The typed value; a word it refuses throws the line that says so.
    var value: Value {
        get throws(CLIError) { try read(words, path) }
    }
}

/// One declared option, bound to what the command line gave it. Made only by
/// `OptionList`, so every option a command reads is in its list.
struct Option<Value>: Sendable {
    let spec: OptionSpec
    /// The words given for it, in order (one empty word for a flag given).
    private let given: [String]
    private let path: [CommandSpec]
    private let read: @Sendable ([String], [CommandSpec]) throws(CLIError) -> Value

    fileprivate init(
        spec: OptionSpec, given: [String], path: [CommandSpec], read: @escaping @Sendable ([String], [CommandSpec]) throws(CLIError) -> Value
    ) {
        self.spec = spec
        self.given = given
        self.path = path
        self.read = read
    }

    /// The typed value; a value it refuses throws the line that says so (usage: 64,
    /// bad value: 65), naming the usage of the command it was given to.
    var value: Value {
        get throws(CLIError) { try read(given, path) }
    }

    /// The last value as typed, for messages about it; nil when not given.
    var text: String? { spec.takesValue ? given.last : nil }
}
