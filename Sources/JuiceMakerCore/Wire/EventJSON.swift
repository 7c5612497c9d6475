import JuiceJSON

extension JSONParser.Options {
    /// How an event's JSON is read, as `JSONDecoder` reads it: a repeated key kept
    /// (the first is the one read), 512 objects and arrays deep, integers exact.
    static let cloudEvents = JSONParser.Options(duplicateKeys: .keep, maximumDepth: 512, numbers: .exactIntegers)
}

// The JSON module's types by the names the core's own tests use, which import the
// core alone.
typealias JSONParser = JuiceJSON.JSONParser
typealias JSONParseError = JuiceJSON.JSONParseError
typealias JSONValue = JuiceJSON.JSONValue
typealias JSONMember = JuiceJSON.JSONMember
