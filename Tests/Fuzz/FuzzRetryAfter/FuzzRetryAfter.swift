import Foundation
import FuzzSupport
import JuiceHTTP

/// `Retry-After` parsing on any header value: nil or a wait of 0 or more seconds,
/// never a trap.
func fuzz(_ bytes: [UInt8]) {
    let now = Date(timeIntervalSince1970: 1_795_235_029)
    guard let seconds = RetryAfter.seconds(String(decoding: bytes, as: UTF8.self), now: now) else { return }
    precondition(seconds >= 0, "negative wait \(seconds)")
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
