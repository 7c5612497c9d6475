#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JuiceMakerCore

extension SQLiteStore: JournalTotalsReading {
    /// The report projection's sums over every hour (folded up to the journal's end
    /// first, as `report` does), the stock in the same snapshot, and the bytes of the
    /// database file and its write-ahead log.
    public func journalTotals() throws(StoreError) -> JournalTotals {
        let snapshot = try report(firstHour: .min, lastHour: .max)
        var totals = JournalTotals(stock: snapshot.stock, events: snapshot.throughSequence, storeBytes: Self.bytes(of: path))
        for row in snapshot.rows {
            switch row.kind {
            case .sale: totals.juicesMade[row.item, default: 0] += row.amount
            case .lostSale: totals.ordersFailed[row.item, default: 0] += row.events
            case .consumed: totals.fruitConsumed[row.item, default: 0] += row.amount
            case .shortage, .unknown: break
            }
        }
        return totals
    }

    /// The sizes of the file at `path` and of its write-ahead log, 0 for one that is not there.
    private static func bytes(of path: String) -> Int64 {
        [path, path + "-wal"].reduce(0) { total, file in
            var info = stat()
            return stat(file, &info) == 0 ? total + Int64(info.st_size) : total
        }
    }
}
