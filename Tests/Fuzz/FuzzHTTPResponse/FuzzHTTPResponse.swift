import FuzzSupport
import JuiceHTTP

/// The webhook client's response parsing on any bytes a server may send: the head
/// parser and the chunked-body reader never trap, read in two pieces they agree with
/// one whole read, and what they accept stays within their bounds.
func fuzz(_ bytes: [UInt8]) {
    let split = bytes.count / 3
    var scanned = 0
    let early = try? HTTPResponseHead.parse(bytes[..<split], scanned: &scanned)
    let pieces = Result { () throws(HTTPViolation) in try HTTPResponseHead.parse(bytes[...], scanned: &scanned) }
    var fresh = 0
    let whole = Result { () throws(HTTPViolation) in try HTTPResponseHead.parse(bytes[...], scanned: &fresh) }
    if let (head, length) = early {
        // A head complete in the first piece is the same head in the whole.
        precondition((try? whole.get())?.1 == length, "a head found early was not found whole")
        precondition(head.status >= 100 && head.status <= 999)
    }
    switch (pieces, whole) {
    case let (.success(a), .success(b)): precondition(a?.0 == b?.0 && a?.1 == b?.1, "pieces and whole disagree")
    case let (.failure(a), .failure(b)): precondition(a == b, "pieces and whole fail differently")
    default: preconditionFailure("pieces and whole disagree on success")
    }
    guard case .success(let parsed?) = whole else { return }
    let (head, length) = parsed
    precondition(length <= bytes.count && length <= HTTPResponseHead.maximumBytes)
    precondition(head.fields.count <= HTTPResponseHead.maximumFields)
    if case .length(let count)? = try? head.framing() { precondition(count >= 0) }
    _ = head.allowsReuse

    // What follows the head, as a chunked body: two pieces or one, the same end.
    let body = bytes[length...]
    var once = HTTPChunkedBody()
    let onceUsed = try? once.consume(body)
    var twice = HTTPChunkedBody()
    let middle = body.startIndex + body.count / 2
    let firstUsed = try? twice.consume(body[..<middle])
    var twiceUsed = firstUsed
    if let first = firstUsed, !twice.isComplete { twiceUsed = (try? twice.consume(body[middle...])).map { first + $0 } }
    if let onceUsed {
        precondition(onceUsed <= body.count && once.dataBytes <= body.count)
        if once.isComplete { precondition(twiceUsed == onceUsed && twice.isComplete, "chunked end depends on how bytes arrive") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
