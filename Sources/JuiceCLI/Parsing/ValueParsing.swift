import JuiceMakerCore

/// Turns command-line words into domain values, and domain errors into `CLIError`s.
/// A word of the wrong shape is a usage error (64, with the usage line); a value of
/// the right shape that the domain refuses is a bad value (65).
enum ValueParsing {
    static func juice(_ text: String) throws(CLIError) -> Juice {
        do { return try Juice.parse(text) } catch { throw CLIError(.badValue, Catalog.Errors.unknownName(error)) }
    }

    static func fruit(_ text: String) throws(CLIError) -> Fruit {
        do { return try Fruit.parse(text) } catch { throw CLIError(.badValue, Catalog.Errors.unknownName(error)) }
    }

    /// A whole number written as digits, optionally after a `-` (so `+2`, ` 2`, `2.0`
    /// and `0x2` are refused, as the message "write digits" says: a usage error).
    /// Digits above `maximum`, or beyond `Int` either way, are a bad value (65) that
    /// names the limit: `99999999999999999999` for `<n>` is above 1,000,000. A value
    /// within `Int` below the caller's minimum is returned for the caller to refuse in
    /// its own words.
    static func integer(_ text: String, for what: String, minimum: Int, maximum: Int, path: [CommandSpec]) throws(CLIError) -> Int {
        switch reading(text) {
        case nil: throw .usage(Catalog.Errors.notAWholeNumber(what, text), path)
        case .aboveInt: throw CLIError(.badValue, Catalog.Errors.numberAboveMaximum(what, text, maximum: maximum))
        case .belowInt: throw CLIError(.badValue, Catalog.Errors.numberBelowMinimum(what, text, minimum: minimum))
        case .value(let value):
            guard value <= maximum else {
                throw CLIError(.badValue, Catalog.Errors.numberAboveMaximum(what, text, maximum: maximum))
            }
            return value
        }
    }

    /// How a typed number reads: within `Int`, or digits beyond it either way.
    enum Reading: Sendable, Equatable {
        case value(Int)
        case aboveInt
        case belowInt
    }

    /// The one reading of a typed number, on the command line and on the screens:
    /// ASCII digits, optionally after `-`; `nil` for anything else (`Int(_:)` alone
    /// also takes a leading `+`, which every "write digits" message rules out).
    static func reading(_ text: String) -> Reading? {
        let negative = text.utf8.first == UInt8(ascii: "-")
        let digits = negative ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        guard let value = Int(text) else { return negative ? .belowInt : .aboveInt }
        return .value(value)
    }

    /// The kinds named by every `--type` (repeatable, comma-separated), or nil when none.
    /// Names are read as juice names are: in any case, with or without `-`, `_` or spaces
    /// (`juiceMade`, `juicemade`, `JUICE-MADE`), or as the CloudEvents type; a typo gets
    /// a suggestion.
    static func eventKinds(_ given: [String], path: [CommandSpec]) throws(CLIError) -> Set<EventKind>? {
        let names = given.flatMap { $0.split(separator: ",").map(String.init) }
        var kinds = Set<EventKind>()
        for name in names {
            guard let kind = eventKind(name) else {
                let suggestion = NameSuggestion.closest(to: squashed(name), among: EventKind.allCases.map { squashed($0.rawValue) })
                    .flatMap { close in EventKind.allCases.first { squashed($0.rawValue) == close } }
                throw .usage(Catalog.Errors.unknownEventType(name, suggestion: suggestion), path)
            }
            kinds.insert(kind)
        }
        return names.isEmpty ? nil : kinds
    }

    /// The kind `name` means, in any case and spelling (see `eventKinds`).
    static func eventKind(_ name: String) -> EventKind? {
        if let kind = EventKind(name: name) { return kind }
        let wanted = squashed(name)
        return EventKind.allCases.first { squashed($0.rawValue) == wanted || $0.cloudEventType == name.lowercased() }
    }

    /// Lowercased, without `-`, `_`, spaces and tabs: `JUICE-MADE` → `juicemade`.
    private static func squashed(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " && $0 != "\t" })
    }

    /// `strawberry=20` (or `딸기=20`) as a fruit and a quantity (at most the stock maximum).
    static func assignment(_ text: String, path: [CommandSpec]) throws(CLIError) -> (Fruit, Int) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { throw .usage(Catalog.Errors.malformedAssignment(text), path) }
        let fruit = try fruit(String(parts[0]))
        let quantity = try integer(
            String(parts[1]), for: "\(parts[0])=", minimum: 0, maximum: FruitAmounts.maximumQuantity, path: path)
        return (fruit, quantity)
    }

    /// Runs a maker call, mapping its refusal to the exit code and message it deserves.
    static func perform<T>(_ path: [CommandSpec], _ body: () throws(JuiceMakerError) -> T) throws(CLIError) -> T {
        do { return try body() } catch { throw cliError(error, path: path) }
    }

    static func cliError(_ error: JuiceMakerError, path: [CommandSpec]) -> CLIError {
        switch error {
        case let .invalidAmount(fruit, amount): CLIError(.badValue, Catalog.Errors.invalidAmount(fruit, amount))
        case let .aboveMaximum(fruit, requested, maximum):
            CLIError(.badValue, Catalog.Errors.aboveMaximum(fruit, requested: requested, maximum: maximum))
        case let .amountAboveMaximum(fruit, amount, maximum):
            CLIError(.badValue, Catalog.Errors.amountAboveMaximum(fruit, amount: amount, maximum: maximum))
        case let .notEnoughToRemove(fruit, available, requested):
            CLIError(.badValue, Catalog.Errors.notEnoughToRemove(fruit, available: available, requested: requested))
        case let .invalidCount(count): CLIError(.badValue, Catalog.Errors.invalidCount(count))
        case let .draftConflict(fruits): CLIError(.storeIO, Catalog.Errors.draftConflict(fruits))
        case let .store(failure): CLIError(.storeIO, Catalog.Errors.store(failure))
        }
    }
}

/// Options more than one command declares.
extension OptionList {
    /// `--since <sequence>`: a sequence number (0 or more); nil when not given.
    mutating func sequence(_ name: String, help: LocalizedText) -> Option<Int64?> {
        value(name, value: "sequence", help: help) { text, path throws(CLIError) in
            let since = try ValueParsing.integer(text, for: "--\(name)", minimum: 0, maximum: Int(Int64.max), path: path)
            guard since >= 0 else { throw CLIError(.badValue, Catalog.Errors.sinceNegative(since)) }
            return Int64(since)
        }
    }

    /// `--type <type>` (`juice events`, `juice watch`, `juice fleet watch`): the kinds
    /// named (`ValueParsing.eventKinds`), or nil when none.
    mutating func eventTypes() -> Option<Set<EventKind>?> {
        let spec = OptionSpec(
            "type", value: "type", repeatable: true, completion: .words(EventKind.allCases.map(\.rawValue)),
            help: LocalizedText(
                "Only events of this type: stockChanged, juiceMade, orderFailed (repeatable).",
                ko: "이 종류의 이벤트만: stockChanged, juiceMade, orderFailed (여러 번 가능)."))
        return declare(spec) { given, path throws(CLIError) in try ValueParsing.eventKinds(given, path: path) }
    }
}
