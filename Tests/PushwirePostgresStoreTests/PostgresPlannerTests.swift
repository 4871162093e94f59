import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// The engine's connections plan keyed access only (`PGPlannerSettings`): the plans that went
/// wrong on statistics taken at the wrong moment stay index plans. Each statement is explained as
/// a generic plan (what a prepared statement keeps until the next ANALYZE).
final class PostgresPlannerTests: XCTestCase {
    /// A step UPDATE planned after an ANALYZE that saw an almost empty outbox probes the outbox's
    /// index for each changed message; it scanned the whole outbox by a bitmap scan and hash join.
    func testAStepUpdateProbesTheOutboxWhateverItsStatistics() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url, readers: 1)
        defer { store.close() }
        let app = try await store.createApplication(
            ApplicationRecord(id: 0, code: "PLANS-00001", name: "plans", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                              createdAt: 1_700_000_000), initialCategories: [])
        for index in 0..<20 {
            _ = try await store.createMessages([NewMessageRecord(
                applicationID: app.id, code: "PLAN\(index)", transactionID: "", sendAtMS: 1_000, categoryID: 0,
                targeting: TargetingRecord(hwids: ["d1"]), spec: "{}")])
        }
        let connection = try PGConnection(url: url, connectTimeout: 5)
        try connection.execute("ANALYZE message_outbox; ANALYZE messages; SET plan_cache_mode = force_generic_plan")
        let step = FanOutStep(messageID: 1, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "d1", attempt: 1)],
                              targetedIncrement: 1, startsSending: true,
                              lease: MessageLease(owner: "server-a", nowMS: 2_000, durationMS: 60_000))
        let plan = try explain(FanOutStepBatch.updateSQL, parameters(of: [step]), on: connection)
        XCTAssertTrue(plan.contains("Index Scan using message_outbox_pkey on message_outbox"), plan)
        for scan in ["Seq Scan on message_outbox", "Bitmap Heap Scan on message_outbox", "Hash Join", "Merge Join"] {
            XCTAssertFalse(plan.contains(scan), "\(scan) in\n\(plan)")
        }
    }

    /// The fan-out's walk of `devices` (`targetsSQL`) reads the primary key in order when the
    /// table was analyzed empty and then filled: it sorted the whole table for each page.
    func testTheFanOutWalkReadsDevicesInKeyOrderBeforeTheyAreAnalyzed() throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url, readers: 1)
        defer { store.close() }
        let connection = try PGConnection(url: url, connectTimeout: 5)
        try connection.execute("""
            ANALYZE devices;
            INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at)
            SELECT 1, 'd' || lpad(n::text, 6, '0'), 'token' || n, 1, 'en', 0, '', '1.0', 0 FROM generate_series(1, 50000) n;
            SET plan_cache_mode = force_generic_plan
            """)
        let plan = try explain(PostgresStore.targetsSQL(""), ["1", "", "5000"], on: connection)
        XCTAssertTrue(plan.contains("Index Scan using devices_pkey on devices"), plan)
        XCTAssertFalse(plan.contains("Sort"), plan)
        XCTAssertFalse(plan.contains("Bitmap"), plan)
    }

    private func explain(_ sql: String, _ parameters: [String?], on connection: PGConnection) throws -> String {
        let rows = try connection.query("EXPLAIN " + sql, parameters)
        return (0..<rows.count).map { rows.text($0, 0) }.joined(separator: "\n")
    }

    /// The UPDATE's thirteen arrays for `steps`, as `FanOutStepBatch.apply` binds them.
    private func parameters(of steps: [FanOutStep]) -> [String?] {
        [PGText.intArray(steps.map(\.messageID)), PGText.intArray(steps.map { _ in 0 }), PGText.intArray(steps.map { _ in 0 }),
         PGText.intArray(steps.map { _ in 0 }), PGText.intArray(steps.map { Int64($0.targetedIncrement) }),
         PGText.optionalTextArray(steps.map(\.cursor)), PGText.boolArray(steps.map(\.finish)),
         PGText.intArray(steps.map { _ in 1 }), PGText.intArray(steps.map { _ in 1 }), PGText.boolArray(steps.map(\.startsSending)),
         PGText.optionalTextArray(steps.map { $0.lease?.owner }), PGText.intArray(steps.map { $0.lease?.nowMS ?? 0 }),
         PGText.intArray(steps.map { $0.lease?.untilMS ?? 0 })]
    }
}
