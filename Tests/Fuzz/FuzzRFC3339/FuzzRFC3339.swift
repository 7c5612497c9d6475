import FuzzSupport
import JuiceMakerCore
import JuicePrimitives

/// RFC 3339 parsing on any text: a date or nil, never a trap; a date it returns
/// formats to text that parses back to the same millisecond.
func fuzz(_ bytes: [UInt8]) {
    guard let date = RFC3339.parse(String(decoding: bytes, as: UTF8.self)) else { return }
    let text = RFC3339.format(date)
    precondition(RFC3339.parse(text).map { RFC3339.format($0) } == text, "format and parse disagree: \(text)")
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
