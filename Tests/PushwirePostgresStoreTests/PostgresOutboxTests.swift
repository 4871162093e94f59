import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// The outbox (`PostgresOutbox`, schema versions 8 and 10): after every kind of change to a
/// message's status, `message_outbox` holds exactly the messages scheduled or sending, each with
/// its send time; a message's first step leaves its row as it is.
final class PostgresOutboxTests: XCTestCase {
    func testTheOutboxFollowsEveryStatusChange() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url, readers: 1)
        defer { store.close() }
        let connection = try PGConnection(url: url, connectTimeout: 5)
        let app = try await createApplication(on: store, code: "OUTBX-00001")
        func create(_ code: String, sendAtMS: Int64 = 1_000) async throws -> MessageRecord {
            try await store.createMessages([NewMessageRecord(
                applicationID: app.id, code: code, transactionID: "", sendAtMS: sendAtMS, categoryID: 0,
                targeting: TargetingRecord(hwids: ["d1"]), spec: "{}")])[0]
        }
        let lease = MessageLease(owner: "server-a", nowMS: 2_000, durationMS: 60_000)
        let stepped = try await create("STEPPED")
        _ = try await create("CANCELLED", sendAtMS: 9_000)
        let started = try await create("STARTED")
        let cut = try await create("CUT")
        let batched = try await create("BATCHED")
        let later = try await create("LATER", sendAtMS: 50_000)
        try assertOutboxFollowsMessages(connection)
        let dueAtFirst = try await store.dueMessageIDs(nowMS: 2_000, limit: 10, includeSending: true)
        XCTAssertEqual(dueAtFirst, [stepped.id, started.id, cut.id, batched.id])
        let nextAtFirst = try await store.nextScheduledSendTime(after: 2_000)
        XCTAssertEqual(nextAtFirst, 9_000)

        // A first step (1 → 2), then its last (2 → 3), as the two UPDATEs of a batch of steps
        // and as single steps.
        let first = FanOutStep(messageID: stepped.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "d1", attempt: 1)],
                               targetedIncrement: 1, startsSending: true, lease: lease)
        let rowBeforeTheStep = try outboxRow(of: stepped.id, connection)
        let ids = try await store.recordFanOutSteps([first])
        try assertOutboxFollowsMessages(connection)
        XCTAssertEqual(try outboxRow(of: stepped.id, connection), rowBeforeTheStep, "a first step writes no new outbox row")
        let outcome = DeliveryResultRecord(deliveryID: ids[0][0], hwid: "d1", result: .sent)
        _ = try await store.recordFanOutSteps([FanOutStep(messageID: stepped.id, applicationID: app.id, results: [outcome],
                                                          finish: true, lease: lease)])
        try assertOutboxFollowsMessages(connection)
        _ = try await store.recordFanOutStep(FanOutStep(messageID: started.id, applicationID: app.id, startsSending: true, lease: lease))
        try assertOutboxFollowsMessages(connection)
        let dueWhileSending = try await store.dueMessageIDs(nowMS: 2_000, limit: 10, includeSending: true)
        XCTAssertEqual(dueWhileSending, [started.id, cut.id, batched.id])
        _ = try await store.recordFanOutStep(FanOutStep(messageID: started.id, applicationID: app.id, finish: true, lease: lease))
        try assertOutboxFollowsMessages(connection)

        // Cancelled (1 → 4); a cancel of a sending message changes nothing.
        let cancelledFrom = try await store.cancelMessage(applicationID: app.id, code: "CANCELLED")
        XCTAssertEqual(cancelledFrom, .scheduled)
        try assertOutboxFollowsMessages(connection)
        let nextAfterCancel = try await store.nextScheduledSendTime(after: 2_000)
        XCTAssertEqual(nextAfterCancel, 50_000)

        // Started by hand (1 → 2), cut into batches (2, its lease given up), its batches finished (2 → 3).
        let startedByHand = try await store.startSending(messageID: cut.id, lease: lease)
        XCTAssertTrue(startedByHand)
        try assertOutboxFollowsMessages(connection)
        let claimed = try await store.claimDueMessages(MessageLease(owner: "server-b", nowMS: 70_000, durationMS: 1_000),
                                                       limit: 10, includeSending: true)
        XCTAssertEqual(claimed, [cut.id, batched.id, later.id])
        let takeover = MessageLease(owner: "server-b", nowMS: 70_000, durationMS: 60_000)
        let wasCut = try await store.cutFanOut(messageID: batched.id, lease: takeover, bounds: [])
        XCTAssertTrue(wasCut)
        try assertOutboxFollowsMessages(connection)
        let batches = try await store.claimFanOutBatches(takeover, limit: 10)
        XCTAssertEqual(batches.map(\.id.messageID), [batched.id])
        _ = try await store.recordFanOutStep(FanOutStep(messageID: batched.id, applicationID: app.id, finish: true, lease: takeover,
                                                        batch: batches[0].id.index))
        try assertOutboxFollowsMessages(connection)
        XCTAssertEqual(try connection.query("SELECT status FROM messages WHERE id = $1", [String(batched.id)]).int(0, 0), 3)
        let dueAtTheEnd = try await store.dueMessageIDs(nowMS: 70_000, limit: 10, includeSending: true)
        XCTAssertEqual(dueAtTheEnd, [cut.id, later.id])
    }

    /// What a version 7 database had scheduled or sending is in the outbox after the migration,
    /// and nothing else.
    func testAVersionSevenDatabaseGetsItsOutbox() async throws {
        let (url, connection) = try databaseAtSchemaVersion(7, applicationCode: "MIGRA-00007")
        for (code, status, sendAt) in [("SCHEDULED", 1, 5_000), ("SENDING", 2, 1_000), ("DONE", 3, 500), ("CANCELLED", 4, 700)] {
            try connection.query("""
                INSERT INTO messages (app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, created_at)
                SELECT id, $1, '', $2, $3, 0, '{}', '{}', 0 FROM applications
                """, [code, String(status), String(sendAt)])
        }

        let store = try PostgresStore(url: url)
        defer { store.close() }
        try assertOutboxFollowsMessages(connection)
        XCTAssertEqual(try connection.query("SELECT count(*) FROM message_outbox").int(0, 0), 2)
        let due = try await store.dueMessageIDs(nowMS: 6_000, limit: 10, includeSending: true)
        let codes = try connection.query("SELECT code FROM messages WHERE id = ANY($1::bigint[]) ORDER BY send_at_ms",
                                         [PGText.intArray(due)])
        XCTAssertEqual(due.count, 2)
        XCTAssertEqual((0..<codes.count).map { codes.text($0, 0) }, ["SENDING", "SCHEDULED"])
    }

    /// What a version 9 database had in its outbox, with statuses, stays there without them, and
    /// the due reads and claims find it by send time.
    func testAVersionNineOutboxKeepsItsRows() async throws {
        let (url, connection) = try databaseAtSchemaVersion(9, applicationCode: "MIGRA-00009")
        for (code, status, sendAt) in [("SCHEDULED", 1, 500), ("SENDING", 2, 1_000), ("LATER", 1, 9_000), ("DONE", 3, 700)] {
            try connection.query("""
                WITH m AS (INSERT INTO messages (app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, created_at)
                           SELECT id, $1, '', $2, $3, 0, '{}', '{}', 0 FROM applications RETURNING id, status, send_at_ms)
                INSERT INTO message_outbox (status, send_at_ms, message_id) SELECT status, send_at_ms, id FROM m WHERE status IN (1, 2)
                """, [code, String(status), String(sendAt)])
        }

        let store = try PostgresStore(url: url)
        defer { store.close() }
        try assertOutboxFollowsMessages(connection)
        func codes(_ ids: [Int64]) throws -> [String] {
            let rows = try connection.query("SELECT id, code FROM messages WHERE id = ANY($1::bigint[])", [PGText.intArray(ids)])
            let byID = Dictionary(uniqueKeysWithValues: (0..<rows.count).map { (rows.int($0, 0), rows.text($0, 1)) })
            return ids.map { byID[$0] ?? "?" }
        }
        let due = try await store.dueMessageIDs(nowMS: 6_000, limit: 10, includeSending: true)
        XCTAssertEqual(try codes(due), ["SCHEDULED", "SENDING"])
        let next = try await store.nextScheduledSendTime(after: 6_000)
        XCTAssertEqual(next, 9_000)
        let claimed = try await store.claimDueMessages(MessageLease(owner: "server-a", nowMS: 6_000, durationMS: 1_000),
                                                       limit: 10, includeSending: true)
        XCTAssertEqual(try codes(claimed), ["SCHEDULED", "SENDING"])
    }

    /// The outbox row of message `id` (its tuple id: an UPDATE writes a new one), nil if none.
    private func outboxRow(of id: Int64, _ connection: PGConnection) throws -> String? {
        let rows = try connection.query("SELECT ctid::text FROM message_outbox WHERE message_id = $1", [String(id)])
        return rows.count > 0 ? rows.text(0, 0) : nil
    }

    /// Fails unless the outbox rows are the messages with status 1 or 2, with their send time.
    private func assertOutboxFollowsMessages(_ connection: PGConnection, line: UInt = #line) throws {
        let mismatched = try connection.query("""
            SELECT count(*) FROM (SELECT send_at_ms, id FROM messages WHERE status IN (1, 2)) m
            FULL JOIN message_outbox o ON o.message_id = m.id AND o.send_at_ms = m.send_at_ms
            WHERE m.id IS NULL OR o.message_id IS NULL
            """)
        XCTAssertEqual(mismatched.int(0, 0), 0, "the outbox differs from the messages scheduled or sending", line: line)
    }
}
