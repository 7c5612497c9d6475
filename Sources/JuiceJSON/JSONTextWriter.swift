/// Writes JSON text, one token at a time or a whole `JSONValue`: compact (one line) or
/// indented by two spaces a level, with `": "` after a key.
///
/// The writer puts the commas, and in indented text the line breaks, where they go;
/// the caller opens and closes what it writes in order, and writes a key before each
/// member of an object. A string is written with every character that steers a
/// terminal escaped (`escapes(_:)`), so the text can be shown as it is and stays one
/// line by any reader's count. What `JSONParser` reads back from it is what was written:
/// each string, member and number text, in order.
public struct JSONTextWriter: Sendable {
    /// Whether a line break and indent goes before each member and item.
    public enum Style: Sendable {
        case compact
        case indented
    }

    /// What has been written, as UTF-8.
    public private(set) var utf8: [UInt8] = []
    private let indented: Bool
    private var depth = 0
    /// Whether the open object or array has a member or item already.
    private var hasEntries = false
    /// Whether a key was just written, so its value follows without a comma.
    private var afterKey = false

    public init(_ style: Style = .compact) {
        indented = style == .indented
    }

    /// What has been written.
    public var text: String { String(decoding: utf8, as: UTF8.self) }

    /// The text of `value`.
    public static func text(of value: JSONValue, _ style: Style = .compact) -> String {
        var writer = JSONTextWriter(style)
        writer.value(value)
        return writer.text
    }

    public mutating func beginObject() {
        open(UInt8(ascii: "{"))
    }

    public mutating func endObject() {
        close(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        open(UInt8(ascii: "["))
    }

    public mutating func endArray() {
        close(UInt8(ascii: "]"))
    }

    /// The key of the object member whose value is written next.
    public mutating func key(_ name: String) {
        entry()
        Self.appendQuoted(name, to: &utf8)
        utf8.append(UInt8(ascii: ":"))
        if indented { utf8.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    /// A member of the open object: `key`, then the string `value`.
    public mutating func member(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    /// A member of the open object: `key`, then the integer `value`.
    public mutating func member(_ key: String, _ value: Int) {
        self.key(key)
        integer(value)
    }

    public mutating func string(_ value: String) {
        entry()
        Self.appendQuoted(value, to: &utf8)
    }

    public mutating func integer(_ value: Int) {
        entry()
        utf8 += String(value).utf8
    }

    /// A number written as `text`, which the caller keeps to JSON's number syntax.
    public mutating func number(_ text: String) {
        entry()
        utf8 += text.utf8
    }

    public mutating func bool(_ value: Bool) {
        entry()
        utf8 += (value ? "true" : "false").utf8
    }

    public mutating func null() {
        entry()
        utf8 += "null".utf8
    }

    /// `value` whole, members in their order. Iterative, so no value recurses.
    public mutating func value(_ value: JSONValue) {
        /// What is left to write of each open object or array, the innermost last.
        var pending: [Rest] = []
        var next: JSONValue? = value
        while let value = next {
            switch value {
            case .object(let members):
                beginObject()
                pending.append(.members(members.makeIterator()))
            case .array(let items):
                beginArray()
                pending.append(.items(items.makeIterator()))
            case .string(let text): string(text)
            case .integer(let number): integer(number)
            case .number(let text): number(text)
            case .bool(let flag): bool(flag)
            case .null: null()
            }
            next = nil
            while next == nil, let last = pending.indices.last {
                switch pending[last] {
                case .members(var rest):
                    if let member = rest.next() {
                        key(member.key)
                        next = member.value
                    } else {
                        endObject()
                    }
                    pending[last] = .members(rest)
                case .items(var rest):
                    next = rest.next()
                    if next == nil { endArray() }
                    pending[last] = .items(rest)
                }
                if next == nil { pending.removeLast() }
            }
        }
    }

    /// The members or items of an open object or array not written yet.
    private enum Rest {
        case members(IndexingIterator<[JSONMember]>)
        case items(IndexingIterator<[JSONValue]>)
    }

    private mutating func open(_ bracket: UInt8) {
        entry()
        utf8.append(bracket)
        depth += 1
        hasEntries = false
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if indented, hasEntries { lineBreak() }
        utf8.append(bracket)
        // The object or array just closed is an entry of the one around it.
        hasEntries = true
    }

    /// What goes before a value or key: nothing after a key, else a comma after an
    /// earlier entry and, indented, a line break.
    private mutating func entry() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        if hasEntries { utf8.append(UInt8(ascii: ",")) }
        hasEntries = true
        if indented { lineBreak() }
    }

    private mutating func lineBreak() {
        utf8.append(UInt8(ascii: "\n"))
        utf8 += repeatElement(UInt8(ascii: " "), count: 2 * depth)
    }
}

extension JSONTextWriter {
    /// `text` as a JSON string literal, quoted and escaped.
    public static func quoted(_ text: String) -> String {
        var json: [UInt8] = []
        appendQuoted(text, to: &json)
        return String(decoding: json, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal (`quoted`).
    public static func appendQuoted(_ text: String, to json: inout String) {
        json += quoted(text)
    }

    /// Appends the UTF-8 of `text` as a JSON string literal: `"` and `\` escaped, line
    /// feed, carriage return and tab as `\n`, `\r`, `\t`, any other character
    /// `escapes(_:)` names as `\uXXXX` (lowercase hex), every other character as it is.
    public static func appendQuoted(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        // Printable ASCII but for `"` and `\` is written as it is: the usual text, in one piece.
        let plain =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                var outside: UInt8 = 0
                for byte in bytes { outside |= ((byte &- 0x20) > 0x5E ? 1 : 0) | (byte == 0x22 ? 1 : 0) | (byte == 0x5C ? 1 : 0) }
                guard outside == 0 else { return false }
                json += bytes
                return true
            } ?? false
        if !plain {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": json += #"\""#.utf8
                case "\\": json += #"\\"#.utf8
                case "\n": json += #"\n"#.utf8
                case "\r": json += #"\r"#.utf8
                case "\t": json += #"\t"#.utf8
                case _ where escapes(scalar):
                    json += #"\u"#.utf8
                    for shift: UInt32 in stride(from: 12, through: 0, by: -4) {
                        let digit = UInt8(scalar.value >> shift & 0xF)
                        json.append(digit < 10 ? 0x30 + digit : 0x61 + digit - 10)
                    }
                default: UTF8.encode(scalar) { json.append($0) }
                }
            }
        }
        json.append(UInt8(ascii: "\""))
    }

    /// The characters the writer writes as `\uXXXX`: those that can steer a terminal or
    /// end a line when written raw. C0 and C1 controls, DEL, the line and paragraph
    /// separators (U+2028, U+2029) and the bidirectional controls.
    public static func escapes(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }
}
