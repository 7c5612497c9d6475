import JuiceTestSupport

/// The kinds of damage the fuzzer does to a copy of a store, each drawn from a seed.
enum DamageKind: String, CaseIterable, Sendable {
    /// The copy cut at any byte (a third of the time near a page boundary).
    case truncation
    /// Bytes 16–17, each legal page size and a list of illegal ones (the seed picks).
    case pageSize
    /// Any other field of the 100-byte header: a random, zero, all-ones or off-by-one value.
    case headerField
    /// Two pages exchanged.
    case pageSwap
    /// One page copied over another.
    case pageDuplicate
    /// A page of another table or index copied over one (a journal page over the dead
    /// letters' half the time).
    case foreignPage
    /// 1–16 random bytes changed anywhere past the header (page 1 one time in eight).
    case byteFlips
    /// A b-tree page's header or cell pointers crafted: cell count, one cell pointer,
    /// every pointer at one cell, page type, right child, content start.
    case btree
    /// An overflow chain crafted: a page pointing at itself, at another chain's page,
    /// past the file, or at 0; or a leaf whose every cell is the cell starting a chain
    /// that loops.
    case overflowChain
}

/// One damaged copy: which store, which kind, which seed. The same three give the
/// same bytes on every machine.
struct DamageCase: Hashable, Sendable, CustomStringConvertible {
    let store: UInt64
    let kind: DamageKind
    let seed: UInt64

    var description: String { "DamageCase(store: \(store), kind: .\(kind), seed: \(seed))" }
}

/// A copy's bytes and what was done to them.
struct DamagedCopy {
    var bytes: [UInt8]
    var what: String
}

extension FuzzStore {
    /// The legal page sizes (1 stands for 65,536) and values that are not one.
    static let pageSizeValues: [Int] = [512, 1024, 2048, 8192, 16384, 32768, 1, 0, 2, 256, 511, 4095, 4097, 100, 0xFFFF, 0x8000 | 0x0100]

    /// The 100-byte header's fields: offset, length, name.
    static let headerFields: [(offset: Int, length: Int, name: String)] = [
        (0, 16, "magic"), (18, 1, "write version"), (19, 1, "read version"), (20, 1, "reserved bytes"),
        (21, 1, "max payload fraction"), (22, 1, "min payload fraction"), (23, 1, "leaf payload fraction"),
        (24, 4, "change counter"), (28, 4, "page count"), (32, 4, "first freelist trunk"), (36, 4, "freelist pages"),
        (40, 4, "schema cookie"), (44, 4, "schema format"), (48, 4, "cache size"), (52, 4, "largest root page"),
        (56, 4, "text encoding"), (60, 4, "user version"), (64, 4, "incremental vacuum"), (68, 4, "application id"),
        (72, 20, "reserved for expansion"), (92, 4, "version-valid-for"), (96, 4, "SQLite version"),
    ]

    /// The copy `damage` describes.
    func damaged(_ damage: DamageCase) -> DamagedCopy {
        var random = SeededGenerator(seed: damage.seed &* 0x2545_F491_4F6C_DD1D ^ UInt64(DamageKind.allCases.firstIndex(of: damage.kind) ?? 0))
        var copy = DamagedCopy(bytes: bytes, what: "")
        switch damage.kind {
        case .truncation: truncate(&copy, &random)
        case .pageSize: setPageSize(&copy, index: Int(damage.seed % UInt64(Self.pageSizeValues.count)))
        case .headerField: damageHeaderField(&copy, &random)
        case .pageSwap: swapPages(&copy, &random)
        case .pageDuplicate: duplicatePage(&copy, &random)
        case .foreignPage: copyForeignPage(&copy, &random)
        case .byteFlips: flipBytes(&copy, &random)
        case .btree: craftBTree(&copy, &random)
        case .overflowChain: craftOverflow(&copy, &random)
        }
        return copy
    }

    // MARK: Whole pages and bytes

    private func truncate(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        var length = Int(random.next() % UInt64(bytes.count))
        if random.next() % 3 == 0 {
            let page = Int(random.next() % UInt64(pageCount))
            length = max(0, min(bytes.count - 1, page * pageSize + [0, 1, -1, 100, -100][Int(random.next() % 5)]))
        }
        copy.bytes.removeSubrange(length...)
        copy.what = "cut to \(length) of \(bytes.count) bytes"
    }

    private func setPageSize(_ copy: inout DamagedCopy, index: Int) {
        let value = Self.pageSizeValues[index]
        copy.bytes[16] = UInt8(value >> 8 & 0xFF)
        copy.bytes[17] = UInt8(value & 0xFF)
        copy.what = "page size bytes 16-17 set to \(value)"
    }

    private func damageHeaderField(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        let field = Self.headerFields[Int(random.next() % UInt64(Self.headerFields.count))]
        let range = field.offset..<field.offset + field.length
        let style = random.next() % 4
        switch style {
        case 0: for index in range { copy.bytes[index] = 0 }
        case 1: for index in range { copy.bytes[index] = 0xFF }
        case 2:
            // One more or one less, big-endian, in the field's last byte.
            copy.bytes[range.upperBound - 1] &+= random.next() % 2 == 0 ? 1 : 0xFF
        default: for index in range { copy.bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
        }
        let shown = copy.bytes[range].prefix(8).map { String($0, radix: 16) }.joined(separator: " ")
        copy.what = "header \(field.name) (bytes \(range.lowerBound)-\(range.upperBound - 1)) set to \(shown)\(field.length > 8 ? " …" : "")"
    }

    private func page(_ number: Int) -> Range<Int> { (number - 1) * pageSize..<number * pageSize }

    private func randomPage(_ random: inout SeededGenerator, from candidates: [Int]? = nil) -> Int {
        let list = candidates.flatMap { $0.isEmpty ? nil : $0 } ?? Array(1...pageCount)
        return list[Int(random.next() % UInt64(list.count))]
    }

    private func role(_ page: Int) -> String {
        pages[page].map { "\($0.name) \($0.type)" } ?? "free"
    }

    private func swapPages(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        // Page 1 takes part one time in eight.
        let first = random.next() % 8 == 0 ? 1 : randomPage(&random, from: Array(2...pageCount))
        var second = randomPage(&random, from: Array(2...pageCount))
        if second == first { second = first % pageCount + 1 }
        let saved = Array(copy.bytes[page(first)])
        copy.bytes.replaceSubrange(page(first), with: copy.bytes[page(second)])
        copy.bytes.replaceSubrange(page(second), with: saved)
        copy.what = "pages \(first) (\(role(first))) and \(second) (\(role(second))) swapped"
    }

    private func duplicatePage(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        let from = randomPage(&random)
        var to = randomPage(&random, from: Array(2...pageCount))
        if to == from { to = from % pageCount + 1 }
        copy.bytes.replaceSubrange(page(to), with: bytes[page(from)])
        copy.what = "page \(from) (\(role(from))) copied over page \(to) (\(role(to)))"
    }

    private func copyForeignPage(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        let bookkeeping = pages(where: { ["dead_letters", "retry_states", "cursors", "stock"].contains($0.name) })
        let to: Int
        let from: Int
        if random.next() % 2 == 0, !bookkeeping.isEmpty {
            to = randomPage(&random, from: bookkeeping)
            from = randomPage(&random, from: pages(where: { $0.name == "journal" && $0.type != "overflow" }))
        } else {
            to = randomPage(&random, from: Array(2...pageCount))
            let target = pages[to]?.name
            from = randomPage(&random, from: pages(where: { $0.name != target }))
        }
        copy.bytes.replaceSubrange(page(to), with: bytes[page(from)])
        copy.what = "page \(from) (\(role(from))) of another b-tree copied over page \(to) (\(role(to)))"
    }

    private func flipBytes(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        let count = 1 + Int(random.next() % 16)
        let onPageOne = random.next() % 8 == 0
        var offsets: [Int] = []
        for _ in 0..<count {
            let offset =
                onPageOne ? Int(random.next() % UInt64(pageSize)) : 100 + Int(random.next() % UInt64(bytes.count - 100))
            copy.bytes[offset] ^= UInt8(1 + random.next() % 255)
            offsets.append(offset)
        }
        copy.what = "\(count) bytes changed at \(offsets.sorted().map { "\($0) (page \($0 / pageSize + 1))" }.joined(separator: ", "))"
    }

    // MARK: Crafted b-tree and overflow damage

    /// Where page `number`'s b-tree header starts (past the file header on page 1).
    private func headerStart(_ number: Int) -> Int { (number - 1) * pageSize + (number == 1 ? 100 : 0) }

    private func u16(_ bytes: [UInt8], _ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }

    private func setU16(_ bytes: inout [UInt8], _ offset: Int, _ value: Int) {
        bytes[offset] = UInt8(value >> 8 & 0xFF)
        bytes[offset + 1] = UInt8(value & 0xFF)
    }

    private func setU32(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt32) {
        for index in 0..<4 { bytes[offset + index] = UInt8(value >> (24 - 8 * UInt32(index)) & 0xFF) }
    }

    private func craftBTree(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        let target = randomPage(&random, from: pages(where: { $0.type != "overflow" }))
        let header = headerStart(target)
        let interior = bytes[header] == 2 || bytes[header] == 5
        let pointers = header + (interior ? 12 : 8)
        let count = u16(bytes, header + 3)
        let room = ((target * pageSize) - pointers) / 2
        switch random.next() % 6 {
        case 0:
            let value = [0, 0xFFFF, count + 1 + Int(random.next() % 40), Int(random.next() % 0x10000), room][Int(random.next() % 5)]
            setU16(&copy.bytes, header + 3, value)
            copy.what = "page \(target) (\(role(target))): cell count \(count) set to \(value)"
        case 1 where count > 0:
            let cell = Int(random.next() % UInt64(count))
            let other = u16(bytes, pointers + 2 * Int(random.next() % UInt64(count)))
            let value = [Int(random.next() % 0x10000), pageSize + Int(random.next() % 100), Int(random.next() % 12), other, pageSize - 1][
                Int(random.next() % 5)]
            setU16(&copy.bytes, pointers + 2 * cell, value)
            copy.what = "page \(target) (\(role(target))): cell pointer \(cell) of \(count) set to \(value)"
        case 2 where count > 0:
            let cell = u16(bytes, pointers + 2 * Int(random.next() % UInt64(count)))
            // As many as fit before that cell (so it stays whole), or as many as there were.
            let fit = max(0, (cell - (pointers - (target - 1) * pageSize)) / 2)
            let many = random.next() % 2 == 0 ? min(count, fit) : fit
            setU16(&copy.bytes, header + 3, many)
            for index in 0..<many { setU16(&copy.bytes, pointers + 2 * index, cell) }
            copy.what = "page \(target) (\(role(target))): \(many) cell pointers all set to \(cell)"
        case 3:
            let value = [0, 2, 5, 10, 13, 0xFF, UInt8(truncatingIfNeeded: random.next())][Int(random.next() % 7)]
            copy.bytes[header] = value
            copy.what = "page \(target) (\(role(target))): page type \(bytes[header]) set to \(value)"
        case 4 where interior:
            let value: UInt32 = [UInt32(target), 0, UInt32(pageCount + 1), 0xFFFF_FFFF, 1][Int(random.next() % 5)]
            setU32(&copy.bytes, header + 8, value)
            copy.what = "page \(target) (\(role(target))): right child set to \(value)"
        default:
            let value = [0, 1, pageSize, 0xFFFF, Int(random.next() % 0x10000)][Int(random.next() % 5)]
            setU16(&copy.bytes, header + 5, value)
            copy.what = "page \(target) (\(role(target))): cell content start set to \(value)"
        }
    }

    private func craftOverflow(_ copy: inout DamagedCopy, _ random: inout SeededGenerator) {
        let overflow = pages(where: { $0.type == "overflow" })
        guard !overflow.isEmpty else {
            copy.what = "no overflow page to damage"
            return
        }
        let target = randomPage(&random, from: overflow)
        let start = (target - 1) * pageSize
        switch random.next() % 5 {
        case 0:
            setU32(&copy.bytes, start, UInt32(target))
            copy.what = "overflow page \(target) (\(role(target))) points at itself"
        case 1:
            let other = randomPage(&random, from: overflow)
            setU32(&copy.bytes, start, UInt32(other))
            copy.what = "overflow page \(target) (\(role(target))) points at overflow page \(other)"
        case 2:
            let value: UInt32 = [UInt32(pageCount + 1), UInt32(pageCount + 1000), 0xFFFF_FFFF, 0x8000_0000][Int(random.next() % 4)]
            setU32(&copy.bytes, start, value)
            copy.what = "overflow page \(target) (\(role(target))) points past the file, at \(value)"
        case 3:
            setU32(&copy.bytes, start, 0)
            copy.what = "overflow page \(target) (\(role(target))) ends its chain early"
        default:
            loopEveryCell(&copy, &random, firstPages: pages(where: { $0.type == "overflow" && $0.path.hasSuffix("+000000") }))
        }
    }

    /// A leaf whose every cell pointer is the cell that starts an overflow chain, the
    /// chain's first page pointing at itself: each cell's read walks the loop.
    private func loopEveryCell(_ copy: inout DamagedCopy, _ random: inout SeededGenerator, firstPages: [Int]) {
        let first = randomPage(&random, from: firstPages)
        // dbstat's path of an overflow page: the leaf's path, the cell (3 hex digits),
        // "+" and the page's place in the chain (6 hex digits).
        guard let chain = pages[first], let plus = chain.path.lastIndex(of: "+"),
            let cellStart = chain.path.index(plus, offsetBy: -3, limitedBy: chain.path.startIndex),
            let cell = Int(chain.path[cellStart..<plus], radix: 16),
            let leaf = pages.first(where: {
                $0.value.path == String(chain.path[..<cellStart]) && $0.value.type == "leaf" && $0.value.name == chain.name
            })?.key
        else {
            copy.what = "overflow page \(first): its leaf not found"
            return
        }
        let header = headerStart(leaf)
        let pointer = u16(bytes, header + 8 + 2 * cell)
        let many = max(0, (pointer - (header + 8 - (leaf - 1) * pageSize)) / 2)
        setU16(&copy.bytes, header + 3, many)
        for index in 0..<many { setU16(&copy.bytes, header + 8 + 2 * index, pointer) }
        setU32(&copy.bytes, (first - 1) * pageSize, UInt32(first))
        copy.what = "leaf \(leaf) (\(role(leaf))): \(many) cells all cell \(cell), whose overflow chain loops at page \(first)"
    }
}
