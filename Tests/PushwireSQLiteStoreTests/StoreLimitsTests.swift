import Foundation
import PushwireSQLiteStore
import PushwireStore
import XCTest

/// The store's limits on tags per device, against data stored before they existed: a device
/// already past a limit may lose tags, but no write may add to what is past it.
final class StoreLimitsTests: XCTestCase {
    func testADevicePastTheLimitCanShrinkButNotGrow() async throws {
        let dir = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: dir)
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "LIMIT-00001"), initialCategories: [])
        try await store.upsertDevice(sampleDevice(app.id, "d1"), tags: [])
        // 10 tags more than the limit, as an older pushwired could have stored them.
        let over = StoreLimits.maxTagsPerDevice + 10
        let rows = (0..<over).map { "(\(app.id), 'd1', 't\($0)', 2, 1, NULL)" }.joined(separator: ", ")
        try executeSQL(dir, "INSERT INTO device_tags (app_id, hwid, name, kind, int_value, text_value) VALUES \(rows)")

        // Removing and replacing work…
        let after = try await store.updateTags(applicationID: app.id, hwid: "d1", [.remove("t0"), .set("t1", .int(5))])
        XCTAssertEqual(after.count, over - 1)
        // …adding does not, even together with a removal that leaves the count unchanged past the limit.
        do {
            _ = try await store.updateTags(applicationID: app.id, hwid: "d1", [.set("new", .int(1))])
            XCTFail("a tag was added past the limit")
        } catch {
            XCTAssertEqual(error, .limitReached("device d1 would hold \(over) tags; at most \(StoreLimits.maxTagsPerDevice) per device"))
        }
        do {
            try await store.upsertDevice(sampleDevice(app.id, "d1"), tags: [.set("new", .int(1))])
            XCTFail("a registration added a tag past the limit")
        } catch {
            XCTAssertEqual(error, .limitReached("device d1 would hold \(over) tags; at most \(StoreLimits.maxTagsPerDevice) per device"))
        }
        await asyncAssertEqual(try await store.tags(applicationID: app.id, hwid: "d1")?.count, over - 1, "the refused writes changed nothing")
    }
}
