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
    /// and `0x2` are refused, as the message "write digits" says); anything else, or a
    /// number beyond `Int`, is a usage error.
    static func integer(_ text: String, for what: String, path: [CommandSpec]) throws(CLIError) -> Int {
        guard let value = wholeNumber(text) else { throw .usage(Catalog.Errors.notAWholeNumber(what, text), path) }
        return value
    }

    /// The one reading of a typed number, on the command line and on the screens:
    /// ASCII digits, optionally after `-`, within `Int`. `Int(_:)` alone also takes a
    /// leading `+`, which every "write digits" message rules out.
    static func wholeNumber(_ text: String) -> Int? {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    /// `strawberry=20` (or `딸기=20`) as a fruit and a quantity.
    /// `--since N` (0 or more), or nil when not given.
    static func since(_ invocation: Invocation) throws(CLIError) -> Int64? {
        guard let text = invocation.value("since") else { return nil }
        let since = try integer(text, for: "--since", path: invocation.path)
        guard since >= 0 else { throw CLIError(.badValue, Catalog.Errors.sinceNegative(since), usage: invocation.path) }
        return Int64(since)
    }

    /// The kinds named by every `--type` (repeatable, comma-separated), or nil when none.
    static func eventKinds(_ invocation: Invocation) throws(CLIError) -> Set<EventKind>? {
        let names = invocation.allValues("type").flatMap { $0.split(separator: ",").map(String.init) }
        var kinds = Set<EventKind>()
        for name in names {
            guard let kind = EventKind(name: name) else {
                throw .usage(Catalog.Errors.unknownEventType(name), invocation.path)
            }
            kinds.insert(kind)
        }
        return names.isEmpty ? nil : kinds
    }

    static func assignment(_ text: String, path: [CommandSpec]) throws(CLIError) -> (Fruit, Int) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { throw .usage(Catalog.Errors.malformedAssignment(text), path) }
        let fruit = try fruit(String(parts[0]))
        return (fruit, try integer(String(parts[1]), for: "\(parts[0])=", path: path))
    }

    /// Runs a maker call, mapping its refusal to the exit code and message it deserves.
    static func perform<T>(_ path: [CommandSpec], _ body: () throws(JuiceMakerError) -> T) throws(CLIError) -> T {
        do { return try body() } catch { throw cliError(error, path: path) }
    }

    static func cliError(_ error: JuiceMakerError, path: [CommandSpec]) -> CLIError {
        switch error {
        case let .invalidAmount(fruit, amount): CLIError(.badValue, Catalog.Errors.invalidAmount(fruit, amount))
        case let .aboveMaximum(fruit, requested, maximum): CLIError(.badValue, Catalog.Errors.aboveMaximum(fruit, requested: requested, maximum: maximum))
        case let .notEnoughToRemove(fruit, available, requested): CLIError(.badValue, Catalog.Errors.notEnoughToRemove(fruit, available: available, requested: requested))
        case let .invalidCount(count): CLIError(.badValue, Catalog.Errors.invalidCount(count), usage: path)
        case let .draftConflict(fruits): CLIError(.storeIO, Catalog.Errors.draftConflict(fruits))
        case let .store(failure): CLIError(.storeIO, Catalog.Errors.store(failure))
        }
    }
}
