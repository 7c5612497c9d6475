#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuicePrimitives

/// A SQLite file's pages, read from its bytes without SQLite: what recovery reads
/// where SQLite stops (a damaged root or interior page, a file cut short), as the
/// `sqlite3` shell's `.recover` does (https://sqlite.org/fileformat.html).
///
/// Only the file itself is read, never its write-ahead log. Every page is checked
/// before use, so a damaged page yields nothing, or cells that recovery then judges
/// like any other row; it never traps.
final class PageFile {
    let pageSize: Int
    /// The bytes of a page SQLite uses (the page size less the reserved bytes).
    let usableSize: Int
    /// Pages in the file (the last one perhaps cut short), whatever its header says.
    let pageCount: Int
    /// The file's size in bytes.
    let size: Int
    /// The page size and reserved bytes the header names, when the pages say
    /// otherwise (then `pageSize` and `usableSize` are what the pages agree on).
    let wrongHeader: (pageSize: Int, reserved: Int)?

    /// The header's geometry and the one taken, when they differ.
    var headerCorrection: RecoveryReport.HeaderCorrection? {
        wrongHeader.map { .init(headerPageSize: $0.pageSize, headerReserved: $0.reserved, pageSize: pageSize, reserved: pageSize - usableSize) }
    }
    private let descriptor: Int32
    /// Pages read so far: what bounds a recovery's time (each scan reads a page once,
    /// and an overflow page at most once).
    private(set) var pagesRead = 0

    /// Opens the file at `path`; nil when it cannot be read or is shorter than a
    /// header. The page size and reserved bytes are the header's when its pages parse
    /// with them; otherwise each legal page size (512 to 65,536), with the header's
    /// reserved bytes and with none, is tried on a sample of the file's pages, and
    /// the one under which they hold the most records is taken.
    convenience init?(path: String) {
        guard let descriptor = try? FileGate.openForReading(path) else { return nil }
        var header = [UInt8](repeating: 0, count: 100)
        var info = stat()
        let count = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 100, 0) }
        guard count == 100, fstat(descriptor, &info) == 0 else {
            close(descriptor)
            return nil
        }
        let raw = Int(header[16]) << 8 | Int(header[17])
        let named = raw == 1 ? 65_536 : raw
        let size = Int(info.st_size)
        let said = (pageSize: named, reserved: Int(header[20]))
        var best = (geometry: said, records: -1)
        if Self.isLegal(said) {
            best.records = Self.estimatedRecords(descriptor, size: size, said)
        }
        // The header's own geometry stands unless another makes clearly more of the file.
        for pageSize in (9...16).map({ 1 << $0 }) {
            for reserved in Set([said.reserved, 0]) where (pageSize, reserved) != said && Self.isLegal((pageSize, reserved)) {
                let records = Self.estimatedRecords(descriptor, size: size, (pageSize, reserved))
                if records > max(best.records, 0) * 5 / 4 + 1 || (best.records < 0 && records >= 0) {
                    best = ((pageSize, reserved), records)
                }
            }
        }
        if best.records < 0 { best.geometry = (4096, 0) }
        let wrong = best.geometry != said ? said : nil
        self.init(descriptor: descriptor, size: size, geometry: best.geometry, wrongHeader: wrong)
    }

    private init(descriptor: Int32, size: Int, geometry: (pageSize: Int, reserved: Int), wrongHeader: (pageSize: Int, reserved: Int)?) {
        self.descriptor = descriptor
        pageSize = geometry.pageSize
        usableSize = geometry.pageSize - geometry.reserved
        // A last page cut short counts: as SQLite reads past the end of a file, its
        // missing bytes read as zeros, and the cells wholly present still read.
        pageCount = (size + geometry.pageSize - 1) / geometry.pageSize
        self.size = size
        self.wrongHeader = wrongHeader
    }

    /// A page size SQLite writes (a power of two from 512 to 65,536) and reserved bytes
    /// that leave it at least 480 usable bytes.
    private static func isLegal(_ geometry: (pageSize: Int, reserved: Int)) -> Bool {
        let (size, reserved) = geometry
        return size >= 512 && size <= 65_536 && size & (size - 1) == 0 && reserved >= 0 && size - reserved >= 480
    }

    /// The stretches of the file each geometry tried is judged on: the whole file up
    /// to 2 MiB, else 8 stretches of 256 KiB spread over it, each starting at a
    /// multiple of 64 KiB so that every page size tried reads whole pages there.
    private static func samples(size: Int) -> [Range<Int>] {
        let stretch = 1 << 18
        guard size > 8 * stretch else { return [0..<size] }
        return (0..<8).map { index in
            let start = (size - stretch) / 7 * index / 65_536 * 65_536
            return start..<min(size, start + stretch)
        }
    }

    /// How many records the file holds if its pages are `geometry`'s: the records
    /// read from the leaf pages of the sampled stretches, scaled to the file's size.
    /// Reads borrow `descriptor`; nothing is closed.
    private static func estimatedRecords(_ descriptor: Int32, size: Int, _ geometry: (pageSize: Int, reserved: Int)) -> Int {
        let file = PageFile(descriptor: duplicate(descriptor), size: size, geometry: geometry, wrongHeader: nil)
        var claims = OverflowClaims()
        var records = 0
        var read = 0
        for stretch in samples(size: size) {
            read += stretch.count
            for number in (stretch.lowerBound / geometry.pageSize + 1)...max(1, (stretch.upperBound - 1) / geometry.pageSize + 1) {
                guard let page = file.bTreePage(number), page.isLeaf else { continue }
                for start in page.cells {
                    if let (_, payload) = page.cell(at: start, in: file, claims: &claims), let payload, PageRecord.values(payload) != nil {
                        records += 1
                    }
                }
            }
        }
        return read == 0 ? 0 : Int(Double(records) * Double(size) / Double(read))
    }

    private static func duplicate(_ descriptor: Int32) -> Int32 {
        fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
    }

    deinit { close(descriptor) }

    /// Page `number` (1-based), or nil beyond the file or when it cannot be read. A page
    /// the file ends inside comes with zeros for its missing bytes.
    func page(_ number: Int) -> [UInt8]? {
        guard number >= 1, number <= pageCount else { return nil }
        pagesRead += 1
        var bytes = [UInt8](repeating: 0, count: pageSize)
        let offset = off_t(number - 1) * off_t(pageSize)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, pageSize, offset) }
        return count > 0 ? bytes : nil
    }

    /// Page `number` as a b-tree page, or nil when it is not one.
    func bTreePage(_ number: Int) -> BTreePage? {
        page(number).flatMap { BTreePage(number: number, bytes: $0, usableSize: usableSize) }
    }

    /// The payload of a cell whose first `local` bytes are at `start` of `page`, then
    /// in the overflow chain that begins at the 4-byte page number after them; nil
    /// when the chain is cut, loops, or runs into a page `claims` holds (in a sound
    /// file each overflow page belongs to one cell: one scan reads each at most once,
    /// so damage cannot make it quadratic).
    func payload(_ page: BTreePage, at start: Int, size: Int, claims: inout OverflowClaims) -> [UInt8]? {
        let local = page.localSize(of: size)
        guard start + local <= page.bytes.count else { return nil }
        var payload = Array(page.bytes[start..<start + local])
        guard local < size else { return payload }
        guard start + local + 4 <= page.bytes.count else { return nil }
        var next = Int(BTreePage.bigEndian32(page.bytes, at: start + local))
        while payload.count < size {
            guard claims.pages.insert(next).inserted, let overflow = self.page(next) else { return nil }
            let take = min(size - payload.count, usableSize - 4)
            // Bytes past the file's end are not the payload's (they read as zeros).
            guard (next - 1) * pageSize + 4 + take <= self.size else { return nil }
            payload += overflow[4..<4 + take]
            next = Int(BTreePage.bigEndian32(overflow, at: 0))
        }
        return payload
    }
}

/// The overflow pages one scan of a file has followed.
struct OverflowClaims {
    var pages: Set<Int> = []
}

/// One b-tree page: its kind, cells and right child, bounds-checked.
struct BTreePage {
    enum Kind: UInt8 {
        case indexInterior = 2, tableInterior = 5, indexLeaf = 10, tableLeaf = 13
    }

    let number: Int
    let kind: Kind
    let bytes: [UInt8]
    let usableSize: Int
    /// Where each cell starts.
    let cells: [Int]
    /// The right-most child of an interior page.
    let rightChild: Int?

    init?(number: Int, bytes: [UInt8], usableSize: Int) {
        let header = number == 1 ? 100 : 0
        guard bytes.count >= header + 12, let kind = Kind(rawValue: bytes[header]) else { return nil }
        let interior = kind == .indexInterior || kind == .tableInterior
        let count = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
        let pointers = header + (interior ? 12 : 8)
        guard pointers + 2 * count <= usableSize else { return nil }
        var cells: [Int] = []
        cells.reserveCapacity(count)
        var seen: Set<Int> = []
        for index in 0..<count {
            let cell = Int(bytes[pointers + 2 * index]) << 8 | Int(bytes[pointers + 2 * index + 1])
            // A cell pointer into the header or past the usable bytes is damage, and a
            // second pointer to one cell a copy: skipped.
            if cell >= pointers + 2 * count, cell < usableSize, seen.insert(cell).inserted { cells.append(cell) }
        }
        self.number = number
        self.kind = kind
        self.bytes = bytes
        self.usableSize = usableSize
        self.cells = cells
        rightChild = interior ? Int(Self.bigEndian32(bytes, at: header + 8)) : nil
    }

    var isLeaf: Bool { kind == .tableLeaf || kind == .indexLeaf }

    /// How much of a payload of `size` bytes a cell of this page keeps on the page.
    func localSize(of size: Int) -> Int {
        let table = kind == .tableLeaf || kind == .tableInterior
        let most = table ? usableSize - 35 : (usableSize - 12) * 64 / 255 - 23
        guard size > most else { return size }
        let least = (usableSize - 12) * 32 / 255 - 23
        let split = least + (size - least) % (usableSize - 4)
        return split <= most ? split : least
    }

    /// The child page a cell of an interior page points to.
    func leftChild(at cell: Int) -> Int? {
        guard !isLeaf, cell + 4 <= bytes.count else { return nil }
        return Int(Self.bigEndian32(bytes, at: cell))
    }

    /// A cell's rowid (table pages) and payload (all but table-interior pages).
    func cell(at start: Int, in file: PageFile, claims: inout OverflowClaims) -> (rowid: Int64?, payload: [UInt8]?)? {
        var offset = start + (isLeaf ? 0 : 4)
        if kind == .tableInterior {
            return Varint.read(bytes, at: &offset).map { ($0, nil) }
        }
        guard let size = Varint.read(bytes, at: &offset), size >= 0, size <= Int64(file.pageCount * file.pageSize) else {
            return nil
        }
        var rowid: Int64?
        if kind == .tableLeaf {
            guard let read = Varint.read(bytes, at: &offset) else { return nil }
            rowid = read
        }
        guard let payload = file.payload(self, at: offset, size: Int(size), claims: &claims) else { return nil }
        return (rowid, payload)
    }

    /// Where the cell at `start` of a page that holds records ends on its page: its
    /// child (interior pages), size and rowid (table leaves), its payload's bytes on
    /// the page, and the overflow page number when it has one.
    func cellEnd(at start: Int) -> Int? {
        guard kind != .tableInterior else { return nil }
        var offset = start + (isLeaf ? 0 : 4)
        guard let size = Varint.read(bytes, at: &offset), size >= 0, size <= Int64(Int32.max) else { return nil }
        if kind == .tableLeaf, Varint.read(bytes, at: &offset) == nil { return nil }
        let local = localSize(of: Int(size))
        return offset + local + (local < Int(size) ? 4 : 0)
    }

    static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// SQLite's variable-length integers: 1 to 9 bytes, big-endian, 7 bits a byte
/// (all 8 in the ninth).
enum Varint {
    /// The integer at `offset`, moving `offset` past it; nil when the bytes end first.
    static func read(_ bytes: [UInt8], at offset: inout Int) -> Int64? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset < bytes.count else { return nil }
            let byte = bytes[offset]
            offset += 1
            if index == 8 { return Int64(bitPattern: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return Int64(bitPattern: value)
    }
}

extension PageFile {
    /// Calls `body` with the rowid and values of every readable cell of every table
    /// leaf in the file, in page order, whichever tree (if any) still reaches it.
    ///
    /// `body` also hears whether the record's bytes on its page all lie within the file:
    /// a record the file's end cuts reads with zeros for its last bytes.
    func forEachTableLeafRecord(_ body: (Int64, [PageValue], _ whole: Bool) throws(StoreError) -> Void) throws(StoreError) {
        guard pageCount >= 1 else { return }
        var claims = OverflowClaims()
        for number in 1...pageCount {
            guard let page = bTreePage(number), page.kind == .tableLeaf else { continue }
            let available = size - (number - 1) * pageSize
            for start in page.cells {
                guard let (rowid, payload) = page.cell(at: start, in: self, claims: &claims), let rowid, let payload,
                    let values = PageRecord.values(payload)
                else { continue }
                try body(rowid, values, page.cellEnd(at: start).map { $0 <= available } ?? false)
            }
        }
    }

    /// The records of the b-tree whose root is page `root` (a table's: with rowids;
    /// an index's or a table without rowid's: without), and whether every page of
    /// it could be read.
    func records(ofTreeAt root: Int) -> (records: [(rowid: Int64?, values: [PageValue])], whole: Bool) {
        var records: [(rowid: Int64?, values: [PageValue])] = []
        var whole = true
        var visited: Set<Int> = []
        var claims = OverflowClaims()
        var pending = [root]
        while let number = pending.popLast() {
            guard visited.insert(number).inserted, let page = bTreePage(number) else {
                whole = false
                continue
            }
            for start in page.cells {
                if let child = page.leftChild(at: start) { pending.append(child) }
                // Table-interior cells hold only keys; every other cell holds a record.
                guard page.kind != .tableInterior else { continue }
                // A record the file's end cuts would read with zeros for its last bytes:
                // a value it never held (a quantity of 0).
                guard let end = page.cellEnd(at: start), end <= size - (number - 1) * pageSize,
                    let (rowid, payload) = page.cell(at: start, in: self, claims: &claims), let payload,
                    let values = PageRecord.values(payload)
                else {
                    whole = false
                    continue
                }
                records.append((rowid, values))
            }
            if let child = page.rightChild { pending.append(child) }
        }
        return (records, whole)
    }

    /// Whether the file is a store under a damaged header: its schema table names a
    /// journal with a store's columns, or, where the schema page is damaged too, one of
    /// its table leaves holds a sound journal row (`RowCheck`) — never the case in
    /// another application's database. With `onlyKnown`, a schema that names a table
    /// outside `known` is a newer juice's store, not damage.
    func holdsStoreTables(known: Set<String>, onlyKnown: Bool) -> Bool {
        var tables: [String: String] = [:]
        for record in records(ofTreeAt: 1).records where record.values.count == 5 && record.values[0].text == "table" {
            if let name = record.values[1].text, !name.hasPrefix("sqlite_") { tables[name] = record.values[4].text ?? "" }
        }
        if onlyKnown, !Set(tables.keys).isSubset(of: known) { return false }
        if let journal = tables["journal"], ["sequence", "id", "time", "type", "change_id", "event"].allSatisfy({ journal.containsText($0) }) {
            return true
        }
        var found = false
        var claims = OverflowClaims()
        for number in 1...max(1, pageCount) where !found {
            guard let page = bTreePage(number), page.kind == .tableLeaf else { continue }
            for start in page.cells where !found {
                guard let (rowid, payload) = page.cell(at: start, in: self, claims: &claims), let rowid, let payload,
                    let values = PageRecord.values(payload), let row = RowCheck.journalRow(rowid: rowid, values)
                else { continue }
                if case .success = RowCheck.journalEvent(row) { found = true }
            }
        }
        return found
    }

    /// Each table's root page, by name, as far as the schema table (page 1's tree)
    /// can be read.
    func rootPages() -> [String: Int] {
        var roots: [String: Int] = [:]
        // sqlite_schema: type, name, tbl_name, rootpage, sql.
        for record in records(ofTreeAt: 1).records where record.values.count == 5 {
            if record.values[0].text == "table", let name = record.values[1].text, let root = record.values[3].integer, root > 0 {
                roots[name] = Int(root)
            }
        }
        return roots
    }
}
