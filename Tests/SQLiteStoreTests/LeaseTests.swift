import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// The delivery lease: one holder per subscriber and store file, whoever opened it.
@Suite(.tags(.unit), .offPool) struct LeaseTests {
    @Test func oneHolderPerSubscriberUntilReleased() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let first = try SQLiteStore(path: path)
        let second = try SQLiteStore(path: path)  // as another process would open it

        let held = try #require(try first.takeDeliveryLease(for: "shop"))
        #expect(try second.takeDeliveryLease(for: "shop") == nil)
        #expect(try first.takeDeliveryLease(for: "shop") == nil)
        let other = try second.takeDeliveryLease(for: "audit/日本")  // names are independent and encoded
        #expect(other != nil)

        held.release()
        #expect(try second.takeDeliveryLease(for: "shop") != nil)

        var info = stat()
        #expect(stat(path + ".lease-shop", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".lease-") }
        #expect(names.sorted() == ["juice.db.lease-audit%2F%E6%97%A5%E6%9C%AC", "juice.db.lease-shop"])
    }

    @Test func theInMemoryLeaseIsProcessLocal() throws {
        let store = InMemoryStore()
        let held = try #require(try store.takeDeliveryLease(for: "shop"))
        #expect(try store.takeDeliveryLease(for: "shop") == nil)
        #expect(try InMemoryStore().takeDeliveryLease(for: "shop") != nil)
        held.release()
        #expect(try store.takeDeliveryLease(for: "shop") != nil)
    }
}
