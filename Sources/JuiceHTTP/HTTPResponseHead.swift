/// An HTTP/1.x response's status line and header fields (RFC 9112), parsed strictly
/// from untrusted bytes: anything the client could misread is refused
/// (`HTTPViolation`), never guessed at.
///
/// - Status line `HTTP/1.<digit> <3 digits>[ <reason>]`; another major version is refused.
/// - Lines end in CRLF or a bare LF (RFC 9112 §2.2); a bare CR anywhere is refused.
/// - A field line is `name:value` with a token for a name and no whitespace before the
///   colon; an obsolete folded line (starting with a space or tab) is refused; a value
///   holds no control character but tab.
/// - At most `maximumBytes` (64 KiB) from the status line to the blank line, and at
///   most `maximumFields` fields.
package struct HTTPResponseHead: Sendable, Equatable {
    package static let maximumBytes = 64 * 1024
    package static let maximumFields = 256

    package struct Field: Sendable, Equatable {
        /// Lowercased.
        package let name: String
        /// Without leading or trailing spaces and tabs.
        package let value: String
    }

    package let status: Int
    /// HTTP/1.1 (or a later 1.x) rather than HTTP/1.0.
    package let isHTTP11: Bool
    package let fields: [Field]

    /// The first value of the field `name` (lowercase), if present.
    package func value(of name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Every value of the field `name` (lowercase), comma-separated lists split,
    /// elements trimmed and empty ones dropped.
    package func elements(of name: String) -> [String] {
        fields.filter { $0.name == name }.flatMap { field in
            field.value.split(separator: ",").map { $0.trimmingSpacesAndTabs() }.filter { !$0.isEmpty }
        }
    }

    /// Finds a complete head at the start of `bytes`: the head and how many bytes it
    /// took (up to and including the blank line), or `nil` while more bytes are needed.
    /// `scanned` carries, between calls on a growing buffer, how far the search for
    /// the blank line got (start it at 0), so each byte is looked at once.
    package static func parse(_ bytes: ArraySlice<UInt8>, scanned: inout Int) throws(HTTPViolation) -> (HTTPResponseHead, Int)? {
        guard let end = headEnd(bytes, scanned: &scanned) else {
            if bytes.count > maximumBytes { throw .headTooLarge }
            return nil
        }
        guard end <= maximumBytes else { throw .headTooLarge }
        return (try parseHead(bytes.prefix(end)), end)
    }

    /// The length of the head (through its blank line), if `bytes` holds all of it.
    private static func headEnd(_ bytes: ArraySlice<UInt8>, scanned: inout Int) -> Int? {
        let start = bytes.startIndex
        var index = start + max(0, scanned)
        // A blank line is an LF followed by LF, or by CR LF.
        while index < bytes.endIndex {
            if bytes[index] == lineFeed {
                let next = index + 1
                if next < bytes.endIndex, bytes[next] == lineFeed { return next + 1 - start }
                if next + 1 < bytes.endIndex, bytes[next] == carriageReturn, bytes[next + 1] == lineFeed { return next + 2 - start }
                // Not decidable yet: look at this LF again when more bytes come.
                if next + 1 >= bytes.endIndex {
                    scanned = index - start
                    return nil
                }
            }
            index += 1
        }
        scanned = index - start
        return nil
    }

    private static func parseHead(_ head: ArraySlice<UInt8>) throws(HTTPViolation) -> HTTPResponseHead {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = head.startIndex
        for index in head.indices where head[index] == lineFeed {
            var line = head[lineStart..<index]
            if line.last == carriageReturn { line = line.dropLast() }
            if line.contains(carriageReturn) { throw .bareCarriageReturn }
            lines.append(line)
            lineStart = index + 1
        }
        // The last line is the blank one that ends the head.
        guard lines.count >= 2, lines.last?.isEmpty == true else { throw .malformedStatusLine }
        let (status, isHTTP11) = try parseStatusLine(lines[0])
        let fieldLines = lines[1..<(lines.count - 1)]
        guard fieldLines.count <= maximumFields else { throw .tooManyFields }
        var fields: [Field] = []
        fields.reserveCapacity(fieldLines.count)
        for line in fieldLines { fields.append(try parseField(line)) }
        return HTTPResponseHead(status: status, isHTTP11: isHTTP11, fields: fields)
    }

    private static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPViolation) -> (Int, Bool) {
        let bytes = Array(line)
        // "HTTP/x.y SP ddd" is 12 bytes; a reason phrase may follow after a space.
        guard bytes.count >= 12, bytes[0..<5].elementsEqual("HTTP/".utf8) else { throw .notHTTP1 }
        guard isDigit(bytes[5]), bytes[6] == UInt8(ascii: "."), isDigit(bytes[7]) else { throw .malformedStatusLine }
        guard bytes[5] == UInt8(ascii: "1") else { throw .notHTTP1 }
        guard bytes[8] == space, bytes[9..<12].allSatisfy(isDigit) else { throw .malformedStatusLine }
        if bytes.count > 12 {
            guard bytes[12] == space, bytes[13...].allSatisfy(isFieldValueByte) else { throw .malformedStatusLine }
        }
        let status = bytes[9..<12].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard status >= 100 else { throw .malformedStatusLine }
        return (status, bytes[7] != UInt8(ascii: "0"))
    }

    private static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPViolation) -> Field {
        guard let first = line.first else { throw .malformedField }
        if first == space || first == tab { throw .foldedField }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
            line[..<colon].allSatisfy(isTokenByte)
        else { throw .malformedField }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == space || byte == tab { value = value.dropFirst() }
        while let byte = value.last, byte == space || byte == tab { value = value.dropLast() }
        guard value.allSatisfy(isFieldValueByte) else { throw .malformedField }
        return Field(name: String(decoding: line[..<colon], as: UTF8.self).lowercased(), value: String(decoding: value, as: UTF8.self))
    }

    // MARK: What follows the head

    /// How the body after this head ends (RFC 9112 §6.3), for a response to a request
    /// other than HEAD.
    package enum Framing: Sendable, Equatable {
        case none
        case length(Int)
        case chunked
        /// Until the server closes the connection.
        case untilClose
    }

    /// How the body ends; a `Content-Length` that is not one number is refused.
    package func framing() throws(HTTPViolation) -> Framing {
        if status < 200 || status == 204 || status == 304 { return .none }
        let codings = elements(of: "transfer-encoding")
        if !codings.isEmpty {
            // An HTTP/1.0 message with Transfer-Encoding has faulty framing (RFC 9112 §6.1).
            return isHTTP11 && codings.last?.lowercased() == "chunked" ? .chunked : .untilClose
        }
        let lengths = elements(of: "content-length")
        guard let first = lengths.first else { return .untilClose }
        // Digits only (no sign, no space), at most 18 of them, and every copy the same.
        guard first.utf8.count <= 18, first.utf8.allSatisfy(Self.isDigit), let length = Int(first),
            lengths.allSatisfy({ $0 == first })
        else { throw .badContentLength }
        return .length(length)
    }

    /// Whether the server lets the connection be used for another request once this
    /// response's body has been read: HTTP/1.1 unless `Connection: close`, HTTP/1.0
    /// only with `Connection: keep-alive`, never with both `Transfer-Encoding` and
    /// `Content-Length` (RFC 9112 §6.3: close after such a message).
    package var allowsReuse: Bool {
        let options = Set(elements(of: "connection").map { $0.lowercased() })
        if value(of: "transfer-encoding") != nil && value(of: "content-length") != nil { return false }
        return isHTTP11 ? !options.contains("close") : options.contains("keep-alive")
    }

    // MARK: Bytes

    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Visible ASCII, space, tab and obs-text: no other control character.
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }
}

extension Substring {
    func trimmingSpacesAndTabs() -> String {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
