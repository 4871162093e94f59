import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// Attempt records on PostgreSQL since schema 7 (`DeliverySteps`): a step's records are one
/// `delivery_steps` row, and only outcomes other than sent get `deliveries` rows; records a
/// schema-6 database holds (a row each) are still read and closed after the migration.
final class PostgresDeliveryStepsTests: XCTestCase {
    private func application(_ code: String) -> ApplicationRecord {
        ApplicationRecord(id: 0, code: code, name: "App \(code)", accessTokenHash: [1, 2, 0, 255], apns: nil, categoriesVersion: 0,
                          createdAt: 1_700_000_000)
    }

    private func count(_ connection: PGConnection, _ sql: String, _ parameters: [String?] = []) throws -> Int64 {
        try connection.query(sql, parameters).int(0, 0)
    }

    /// A step of 70,000 records (more than one id block) is two rows, with consecutive ids in
    /// each; sent outcomes write nothing per device, failures and retries a row each; what is
    /// open is read back from the step rows.
    func testAStepsRecordsAreRowsPerBlockAndOnlyOutcomesGetRowsOfTheirOwn() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let connection = try PGConnection(url: url, connectTimeout: 5)
        let app = try await store.createApplication(application("STEPS-00001"), initialCategories: [])
        let message = try await store.createMessages([NewMessageRecord(
            applicationID: app.id, code: "MSG-STEPS", transactionID: "", sendAtMS: 0, categoryID: 0,
            targeting: TargetingRecord(), spec: "{}")])[0]
        let hwids = (0..<70_000).map { String(format: "hw-%06d", $0) }
        let first = try await store.recordFanOutStep(FanOutStep(
            messageID: message.id, applicationID: app.id, handOver: hwids.map { NewDeliveryRecord(hwid: $0, attempt: 1) },
            cursor: hwids.last, targetedIncrement: hwids.count, startsSending: true))
        XCTAssertEqual(first.count, hwids.count)
        XCTAssertEqual(Set(first).count, hwids.count, "distinct")
        XCTAssertEqual(first, first.sorted(), "ascending in the order of handOver")
        XCTAssertTrue(first.allSatisfy { $0 >= UInt64(DeliverySteps.base) })
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM delivery_steps WHERE message_id = $1", [String(message.id)]), 2,
                       "one row per block of 65,536 ids")
        XCTAssertEqual(try count(connection, "SELECT sum(cardinality(hwids)) FROM delivery_steps WHERE message_id = $1",
                                 [String(message.id)]), Int64(hwids.count))
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM deliveries WHERE message_id = $1", [String(message.id)]), 0,
                       "no row per record handed over")
        var open = try await store.openDeliveries(messageID: message.id)
        XCTAssertEqual(open.count, hwids.count)
        XCTAssertEqual(open.map(\.deliveryID), first)
        XCTAssertEqual(open.map(\.hwid), hwids)
        XCTAssertTrue(open.allSatisfy { $0.handedOver && $0.attempt == 1 })

        // The outcomes: all sent but two failures and one retry, which are the only rows written.
        let results = first.enumerated().map { index, id -> DeliveryResultRecord in
            switch index {
            case 7: DeliveryResultRecord(deliveryID: id, hwid: hwids[index], result: .failed(reason: "BadDeviceToken", invalidToken: true,
                                                                                                refusedToken: nil))
            case 68_000: DeliveryResultRecord(deliveryID: id, hwid: hwids[index], result: .failed(reason: "PayloadTooLarge",
                                                                                                    invalidToken: false, refusedToken: nil))
            case 69_999: DeliveryResultRecord(deliveryID: id, hwid: hwids[index], result: .retryPending(reason: "TooManyRequests"))
            default: DeliveryResultRecord(deliveryID: id, hwid: hwids[index], result: .sent)
            }
        }
        _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: results))
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM deliveries WHERE message_id = $1", [String(message.id)]), 3)
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM deliveries WHERE message_id = $1 AND state = 2 AND hwid = ANY($2::text[])",
                                 [String(message.id), PGText.textArray([hwids[7], hwids[68_000]])]), 2)
        open = try await store.openDeliveries(messageID: message.id)
        XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: first[69_999], hwid: hwids[69_999], attempt: 1, handedOver: false, deviceType: 0)])

        // Its retry is a step row of its own with its attempt; the pending record is replaced.
        let retry = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, handOver: [
            NewDeliveryRecord(hwid: hwids[69_999], attempt: 2, replaces: first[69_999])]))
        open = try await store.openDeliveries(messageID: message.id)
        XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: retry[0], hwid: hwids[69_999], attempt: 2, handedOver: true, deviceType: 0)])
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM deliveries WHERE id = $1 AND state = 4", [String(first[69_999])]), 1)
        _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
            DeliveryResultRecord(deliveryID: retry[0], hwid: "", result: .sent)], finish: true))
        let stats = try await store.statistics(messageID: message.id)
        XCTAssertEqual([stats.targeted, stats.sent, stats.failed, stats.invalidTokens], [70_000, 69_998, 2, 1])
        let closed = try await store.openDeliveries(messageID: message.id)
        XCTAssertEqual(closed, [])
    }

    /// A database of schema 6 with a message in the middle of its fan-out — two records handed
    /// over (a row each, state 0, in the open range) and one waiting for a retry — is migrated;
    /// its open records are read as before, closed as the resumed fan-out closes them, and the
    /// retry that replaces the waiting one is of the new form.
    func testRecordsOfSchemaSixAreReadAndClosedAfterTheMigration() async throws {
        let (url, connection) = try databaseAtSchemaVersion(6, applicationCode: "OLDFO-00001")
        let app = try connection.query("SELECT id FROM applications").int(0, 0)
        for (hwid, type) in [("a", 1), ("b", 3), ("c", 1)] {
            try connection.query("""
                INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at)
                VALUES ($1, $2, 'tok-' || $2, $3, 'en', 0, '', '1', 0)
                """, [String(app), hwid, String(type)])
        }
        try connection.query("""
            INSERT INTO messages (app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, cursor, open_from, open_to,
                                  targeted, created_at)
            VALUES ($1, 'MSG-OLD', '', 2, 0, 0, '{}', '{}', 'c', 11, 12, 3, 1700000000)
            """, [String(app)])
        let message = try connection.query("SELECT id FROM messages").int(0, 0)
        try connection.query("""
            INSERT INTO deliveries (id, message_id, hwid, attempt, state, reason)
            VALUES (10, $1, 'c', 1, 3, 'TooManyRequests'), (11, $1, 'a', 1, 0, ''), (12, $1, 'b', 1, 0, '')
            """, [String(message)])
        try connection.query("SELECT setval('deliveries_ids', 12)")

        let store = try PostgresStore(url: url)
        defer { store.close() }
        XCTAssertEqual(try count(connection, "SELECT version FROM pushwire_schema"), Int64(PostgresSchema.currentVersion))
        var open = try await store.openDeliveries(messageID: message)
        XCTAssertEqual(open, [
            OpenDeliveryRecord(deliveryID: 10, hwid: "c", attempt: 1, handedOver: false, deviceType: 1),
            OpenDeliveryRecord(deliveryID: 11, hwid: "a", attempt: 1, handedOver: true, deviceType: 1),
            OpenDeliveryRecord(deliveryID: 12, hwid: "b", attempt: 1, handedOver: true, deviceType: 3),
        ])

        // The resumed fan-out: the handed-over ones Interrupted, the waiting one retried.
        let interrupted = DeliveryResultRecord.Result.failed(reason: "Interrupted", invalidToken: false, refusedToken: nil)
        let retry = try await store.recordFanOutStep(FanOutStep(messageID: message, applicationID: app, results: [
            DeliveryResultRecord(deliveryID: 11, hwid: "a", result: interrupted),
            DeliveryResultRecord(deliveryID: 12, hwid: "b", result: interrupted),
        ], handOver: [NewDeliveryRecord(hwid: "c", attempt: 2, replaces: 10)]))
        XCTAssertEqual(retry.count, 1)
        XCTAssertGreaterThanOrEqual(retry[0], UInt64(DeliverySteps.base), "above every id of the older form")
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM delivery_steps WHERE message_id = $1", [String(message)]), 1)
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM deliveries WHERE id IN (11, 12) AND state = 2 AND reason = 'Interrupted'"), 2)
        XCTAssertEqual(try count(connection, "SELECT state FROM deliveries WHERE id = 10"), 4, "replaced")
        open = try await store.openDeliveries(messageID: message)
        XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: retry[0], hwid: "c", attempt: 2, handedOver: true, deviceType: 1)])

        _ = try await store.recordFanOutStep(FanOutStep(messageID: message, applicationID: app, results: [
            DeliveryResultRecord(deliveryID: retry[0], hwid: "c", result: .sent)], finish: true))
        let closed = try await store.openDeliveries(messageID: message)
        XCTAssertEqual(closed, [])
        let stats = try await store.statistics(messageID: message)
        XCTAssertEqual([stats.sent, stats.failed], [1, 2])
        XCTAssertEqual(stats.failures.map(\.reason), ["Interrupted"])
    }
}
