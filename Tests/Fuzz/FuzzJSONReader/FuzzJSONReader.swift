import FuzzSupport
import JuiceCLI

/// The config's JSON reader on any text: it returns a value or throws JSONSyntaxError,
/// never traps, and a value it returns is read back the same from its own output.
func fuzz(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let value = try? JSONReader.parse(text) else { return }
    precondition((try? JSONReader.parse(JSONWriter.compact(value))) == value, "round trip changed the value")
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
