import FuzzSupport
import JuiceCLI

/// `juice`'s command-line parser on any words (the input split at NUL bytes): it
/// parses or refuses, never traps.
func fuzz(_ bytes: [UInt8]) {
    let words = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    _ = CommandLineParser.juice.accepts(words)
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
