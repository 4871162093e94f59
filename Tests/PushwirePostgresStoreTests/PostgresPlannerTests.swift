import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// Plans made on statistics taken at the wrong moment and kept (a prepared statement's generic
/// plan lasts until the next ANALYZE of its tables): status changes find outbox rows by key, never
/// by a join (`PostgresOutbox.updatingStatus`), and the engine's connections plan keyed access
/// only (`PGPlannerSettings`), so that the fan-out's walk of `devices` stays an index walk.
final class PostgresPlannerTests: XCTestCase {
    /// A step UPDATE's generic plan, made while the outbox was analyzed nearly empty and kept as it
    /// grew to thousands of rows, finds each changed message's outbox row by its key and changes it
    /// by its ctid. (Joined to the outbox, such a plan read all of it for each message.)
    func testAStepUpdateFindsOutboxRowsByKeyWhateverItsStatistics() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url, readers: 1)
        defer { store.close() }
        let app = try await createApplication(on: store, code: "PLANS-00001")
        func create(_ count: Int, from first: Int) async throws -> [MessageRecord] {
            try await store.createMessages((first..<first + count).map { index in
                NewMessageRecord(applicationID: app.id, code: "PLAN\(index)", transactionID: "", sendAtMS: 1_000 + Int64(index % 7),
                                 categoryID: 0, targeting: TargetingRecord(hwids: ["d1"]), spec: "{}")
            })
        }
        let first = try await create(8, from: 0)
        let connection = try PGConnection(url: url, connectTimeout: 5)
        try connection.execute("ANALYZE message_outbox; ANALYZE messages; SET plan_cache_mode = force_generic_plan")
        let lease = MessageLease(owner: "server-a", nowMS: 2_000, durationMS: 60_000)
        let steps = first.map { FanOutStep(messageID: $0.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "d1", attempt: 1)],
                                           targetedIncrement: 1, startsSending: true, lease: lease) }
        // A prepared statement whose generic plan is made now and kept (no ANALYZE follows).
        try connection.execute("PREPARE step AS " + FanOutStepBatch.updateSQL)
        let parameters = FanOutStepBatch.updateParameters(steps, ids: steps.map { _ in [1] },
                                                          platforms: FanOutStepBatch.rowPlatforms(steps))
        let execute = "EXPLAIN EXECUTE step(" + (try literals(parameters, of: FanOutStepBatch.updateSQL, on: connection))
            .map { $0.map { "'\($0)'" } ?? "NULL" }.joined(separator: ", ") + ")"
        try connection.execute(execute)
        for batch in 0..<6 { _ = try await create(500, from: 8 + batch * 500) }
        let plan = planText(try connection.query(execute))
        XCTAssertEqual(plan.components(separatedBy: "Tid Scan on message_outbox").count - 1, 1, plan)
        XCTAssertEqual(plan.components(separatedBy: "AND (message_id = c").count - 1, 1, "it probes the outbox's key:\n\(plan)")
        for join in ["Materialize", "Hash Join", "Merge Join", "Seq Scan on message_outbox"] {
            XCTAssertFalse(plan.contains(join), "\(join) in\n\(plan)")
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
        planText(try connection.query("EXPLAIN " + sql, parameters))
    }

    /// The parameters of `sql` as text literals (nil: NULL), each converted by the database from
    /// its type there (`$n::type`), for an `EXECUTE` written out.
    private func literals(_ parameters: [PGParameter], of sql: String, on connection: PGConnection) throws -> [String?] {
        let casts = try NSRegularExpression(pattern: #"\$([0-9]+)::([a-z]+\[\])"#)
        var types: [Int: String] = [:]
        for match in casts.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)) {
            guard let number = Range(match.range(at: 1), in: sql), let type = Range(match.range(at: 2), in: sql) else { continue }
            types[Int(sql[number])!] = String(sql[type])
        }
        return try parameters.enumerated().map { index, parameter in
            guard let type = types[index + 1] else { throw PGError(sqlstate: "XX000", message: "no type for $\(index + 1)", context: "test") }
            let rows = try connection.query("SELECT $1::\(type)::text", [parameter])
            return rows.optionalText(0, 0)
        }
    }

    /// An EXPLAIN's rows as one text.
    private func planText(_ rows: PGResult) -> String {
        (0..<rows.count).map { rows.text($0, 0) }.joined(separator: "\n")
    }
}
