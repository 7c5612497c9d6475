/// Reads past a `Transfer-Encoding: chunked` body (RFC 9112 §7.1) without keeping it:
/// fed bytes as they arrive, it says where the body (with its trailer section) ends.
///
/// Chunk sizes are hexadecimal (at most 15 digits), extensions after `;` are ignored,
/// each size line and the trailer section are bounded, a chunk's data must be
/// followed by a line end, and a bare CR is refused.
package struct HTTPChunkedBody: Sendable {
    /// The longest chunk-size line (with its extensions).
    static let maximumLineBytes = 4_096

    private enum Stage: Sendable {
        case size
        case data(Int)
        case dataEnd
        case trailer
        case done
    }

    private var stage = Stage.size
    private var line: [UInt8] = []
    private var trailerBytes = 0
    /// Chunk data bytes seen so far.
    package private(set) var dataBytes = 0

    package init() {}

    /// Whether the body, trailer section included, has ended.
    package var isComplete: Bool {
        if case .done = stage { return true }
        return false
    }

    /// Consumes from the start of `bytes` up to the end of the body; returns how many
    /// bytes belonged to it (all of them unless the body ended inside).
    package mutating func consume(_ bytes: ArraySlice<UInt8>) throws(HTTPViolation) -> Int {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch stage {
            case .done:
                return index - bytes.startIndex
            case .data(let left):
                let take = min(left, bytes.endIndex - index)
                index += take
                dataBytes += take
                stage = take == left ? .dataEnd : .data(left - take)
            case .size, .dataEnd, .trailer:
                let byte = bytes[index]
                index += 1
                guard byte == HTTPResponseHead.lineFeed else {
                    line.append(byte)
                    let limit = if case .trailer = stage { HTTPResponseHead.maximumBytes - trailerBytes } else { Self.maximumLineBytes }
                    if line.count > limit { throw .malformedChunk }
                    continue
                }
                if line.last == HTTPResponseHead.carriageReturn { line.removeLast() }
                if line.contains(HTTPResponseHead.carriageReturn) { throw .bareCarriageReturn }
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
        return index - bytes.startIndex
    }

    private mutating func endLine() throws(HTTPViolation) {
        switch stage {
        case .size:
            let digits = line.prefix { $0.isHexDigit }
            let rest = line.dropFirst(digits.count).drop { $0 == HTTPResponseHead.space || $0 == HTTPResponseHead.tab }
            guard !digits.isEmpty, digits.count <= 15, rest.isEmpty || rest.first == UInt8(ascii: ";") else {
                throw .malformedChunk
            }
            let size = digits.reduce(0) { $0 << 4 | $1.hexValue }
            stage = size == 0 ? .trailer : .data(size)
        case .dataEnd:
            guard line.isEmpty else { throw .malformedChunk }
            stage = .size
        case .trailer:
            if line.isEmpty {
                stage = .done
            } else {
                if line.first == HTTPResponseHead.space || line.first == HTTPResponseHead.tab { throw .foldedField }
                trailerBytes += line.count + 2
            }
        case .data, .done:
            break
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }

    fileprivate var hexValue: Int {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(self - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(self - UInt8(ascii: "a")) + 10
        default: Int(self - UInt8(ascii: "A")) + 10
        }
    }
}
