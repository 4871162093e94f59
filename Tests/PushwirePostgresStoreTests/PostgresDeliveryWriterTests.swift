import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// The delivery pipeline's bookkeeping (`write(background: true)`) has a writer of its own:
/// CreateMessage's INSERT commits while a fan-out step's transaction is in progress, and the
/// other way round (on the one writer each waited for the other).
final class PostgresDeliveryWriterTests: XCTestCase {
    private func message(_ applicationID: Int64, _ code: String) -> NewMessageRecord {
        NewMessageRecord(applicationID: applicationID, code: code, transactionID: "", sendAtMS: 0, categoryID: 0,
                         targeting: TargetingRecord(hwids: ["hw-0"]), spec: "{}")
    }

    /// A write that holds its connection for 1.5 s, on the writer (`background: false`) or on
    /// the delivery writer.
    private func hold(_ store: PostgresStore, background: Bool) -> Task<Void, Error> {
        Task {
            try await store.write(background: background) { connection throws(StoreError) in
                try pg { () throws(PGError) in _ = try connection.query("SELECT pg_sleep(1.5)") }
            }
        }
    }

    /// Waits until a backend of `url`'s database is in `pg_sleep`: the held write has begun.
    private func waitForTheHeldWrite(_ url: String) async throws {
        let watcher = try PGConnection(url: url, connectTimeout: 5, applicationName: "delivery-writer-test")
        for _ in 0..<1_000 {
            let rows = try watcher.query("""
                SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()
                """)
            if rows.int(0, 0) > 0 { return }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        XCTFail("the held write's pg_sleep did not begin within 5 s")
    }

    func testMessageCreationCommitsWhileTheDeliveryBookkeepingRuns() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let app = try await createApplication(on: store, code: "AAAAA-00041")
        let busy = hold(store, background: true)
        try await waitForTheHeldWrite(url)
        let started = Date()
        let created = try await store.createMessages([message(app.id, "DW-1")])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 1.0, "the creation waited \(elapsed) s behind the delivery bookkeeping")
        try await busy.value
        let stored = try await store.message(id: created[0].id)
        XCTAssertEqual(stored?.code, "DW-1")
    }

    func testDeliveryBookkeepingCommitsWhileTheWriterIsBusy() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let app = try await createApplication(on: store, code: "AAAAA-00042")
        let created = try await store.createMessages([message(app.id, "DW-2")])
        let busy = hold(store, background: false)
        try await waitForTheHeldWrite(url)
        let started = Date()
        let lease = MessageLease(owner: "delivery-writer-test", nowMS: 1_000, durationMS: 10_000)
        let claimed = try await store.claimDueMessages(lease, limit: 10, includeSending: true)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(claimed, [created[0].id])
        XCTAssertLessThan(elapsed, 1.0, "the claim waited \(elapsed) s behind the writer")
        try await busy.value
    }

    /// Without a delivery writer the bookkeeping shares the writer, as before.
    func testWithoutADeliveryWriterTheBookkeepingSharesTheWriter() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url, deliveryWriter: false)
        defer { store.close() }
        let app = try await createApplication(on: store, code: "AAAAA-00043")
        let busy = hold(store, background: true)
        try await waitForTheHeldWrite(url)
        let started = Date()
        _ = try await store.createMessages([message(app.id, "DW-3")])
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1.0, "one writer: the creation waits for the sleep")
        try await busy.value
    }
}
