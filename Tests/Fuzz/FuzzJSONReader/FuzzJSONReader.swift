import FuzzSupport
import JuiceCLI

/// The config's JSON reader on any text: it returns a value or throws JSONSyntaxError,
/// never traps, and a value it returns, written, reads back as a value written the
/// same (numbers are written by their `Double`, so `1.0` comes back as `1`).
func fuzz(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let value = try? JSONReader.parse(text) else { return }
    let written = JSONWriter.compact(value)
    precondition((try? JSONReader.parse(written)).map(JSONWriter.compact) == written, "round trip changed the value")
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
