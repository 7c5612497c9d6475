import FuzzSupport
import JuiceJSON

/// The JSON module on any text, under the events' policy (repeated keys kept, 512
/// deep, exact integers) and the config's (repeated keys refused, 64 deep, numbers
/// within `Double`): never a trap; an error inside the text with a line and column;
/// the config's policy takes less and never refuses elsewhere for another syntax
/// reason; a value written and read back is the same value, number texts and all.
func fuzz(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let events = JSONParser.Options()
    let config = JSONParser.Options(duplicateKeys: .refuse, maximumDepth: 64, numbers: .doubles)
    let read = [events, config].map { options in Result { () throws(JSONParseError) in try JSONParser.parse(text, options: options) } }
    for (options, result) in zip([events, config], read) {
        switch result {
        case .success(let value):
            for style in [JSONTextWriter.Style.compact, .indented] {
                precondition(
                    (try? JSONParser.parse(JSONTextWriter.text(of: value, style), options: options)) == value, "round trip changed the value")
            }
        case .failure(let error):
            precondition(error.offset <= text.utf8.count, "error beyond the text")
            let (line, column) = error.location(in: text)
            precondition(line >= 1 && column >= 1, "no line and column")
        }
    }
    switch (read[0], read[1]) {
    case (.failure(let eventError), .success): preconditionFailure("the config's policy took what the events' refused: \(eventError)")
    case (.failure(let eventError), .failure(let configError)):
        switch configError.problem {
        case .duplicateKey, .nestedTooDeep, .numberOutOfRange:
            precondition(configError.offset <= eventError.offset, "a policy error after a syntax error")
        default: precondition(configError == eventError, "the policies refused for different syntax reasons")
        }
    case (.success, .failure(let configError)):
        switch configError.problem {
        case .duplicateKey, .nestedTooDeep, .numberOutOfRange: break
        default: preconditionFailure("the config's policy refused valid JSON for a syntax reason: \(configError)")
        }
    case (.success, .success): break
    }
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
