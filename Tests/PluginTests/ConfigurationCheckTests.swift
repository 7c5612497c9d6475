import JuiceJSON
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

/// A declaration checks a value read from a file by the number it is, and echoes the
/// number as it was written.
@Suite("Config checks of numbers", .tags(.unit))
struct ConfigurationCheckTests {
    private static let options = JSONParser.Options(duplicateKeys: .refuse, maximumDepth: 64, numbers: .doubles)

    /// `text` as the config reader reads it.
    private func read(_ text: String) throws -> JSONValue {
        try JSONParser.parse(text, options: Self.options)
    }

    private func failure(_ type: ConfigurationType, _ text: String) throws -> ConfigurationError? {
        let value = try read(text)
        do {
            try type.check(value, at: "key")
            return nil
        } catch {
            return error
        }
    }

    @Test("a unique list refuses one number written two ways, and takes two numbers")
    func uniqueNumbersCompareByValue() throws {
        let list = ConfigurationType.list(.number(minimum: 0, maximum: 100), unique: true)
        for text in ["[1, 1.0]", "[10, 1e1]", "[0, -0]", "[[2], [2.0]]"] {
            let type = text.hasPrefix("[[") ? ConfigurationType.list(list, unique: true) : list
            let error = try failure(type, text)
            #expect(error?.path == "key[1]", "\(text): \(String(describing: error))")
            #expect(error?.reason.description.hasSuffix("is listed twice (also at key[0]); list each once") == true, "\(text)")
        }
        #expect(try failure(list, "[1, 1.5, 2]") == nil)
        #expect(try failure(.list(.string, unique: true), #"["1", "1.0"]"#) == nil)
    }

    @Test("ranges and whole numbers by value; the error echoes the number as written")
    func rangesByValue() throws {
        let whole = ConfigurationType.integer(0...100)
        #expect(try failure(whole, "1e2") == nil)
        #expect(try failure(whole, "100.0") == nil)
        #expect(
            try failure(whole, "99999999999999999999999")?.reason.description
                == "99999999999999999999999 is above 100; expected a whole number from 0 to 100")
        #expect(try failure(whole, "1.50")?.reason.description == "1.50 is not a whole number; expected a whole number from 0 to 100")
        #expect(try failure(whole, "-1e0")?.reason.description == "-1e0 is below 0; expected a whole number from 0 to 100")
        let seconds = ConfigurationType.number(minimum: 0, exclusiveMinimum: true, maximum: 60, unit: "seconds")
        #expect(try failure(seconds, "0.0")?.reason.description == "0.0 is not above 0; expected a number of seconds above 0 and at most 60")
        #expect(try failure(seconds, "6e1") == nil)
        #expect(try failure(seconds, #""6""#)?.reason.description == "expected a number of seconds above 0 and at most 60, found a string")
    }

    @Test("a section reads a number as its Double, and a default written as a Double as the number")
    func sectionReadsNumbers() throws {
        let key = ConfigurationKey("timeout", .number(minimum: 0, maximum: 60), default: .number(2.5), description: "d")
        let written = PluginConfiguration(path: "s", values: [JSONMember(key: "timeout", value: try read("2.5e1"))])
        #expect(try written.number(key) == 25)
        #expect(try PluginConfiguration(path: "s", values: []).number(key) == 2.5)
        #expect(key.defaultValue == .number("2.5"))
        #expect(JSONValue.number(10) == .number("10"))
    }
}
