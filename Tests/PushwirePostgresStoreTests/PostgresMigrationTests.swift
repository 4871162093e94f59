import PushwireStore
@testable import PushwirePostgresStore
import XCTest

/// A database made by the first PostgreSQL engine (schema version 1) is brought to the current
/// version when a newer pushwired opens it, its data kept.
final class PostgresMigrationTests: XCTestCase {
    func testAVersionOneDatabaseIsMigrated() async throws {
        let url = try freshDatabaseURL()
        // What the first engine left: version 1's tables, one application, one device.
        let connection = try PGConnection(url: url, connectTimeout: 5)
        try connection.execute("CREATE TABLE pushwire_schema (version integer NOT NULL)")
        try connection.execute(PostgresSchema.migrations[0])
        try connection.query("INSERT INTO pushwire_schema (version) VALUES (1)")
        try connection.query("""
            INSERT INTO applications (code, name, access_token_hash, categories_version, created_at)
            VALUES ('MIGRA-00001', 'old', '\\x00'::bytea, 1, 1700000000)
            """)

        let store = try PostgresStore(url: url)
        defer { store.close() }
        let version = try connection.query("SELECT version FROM pushwire_schema")
        XCTAssertEqual(version.count, 1)
        XCTAssertEqual(version.int(0, 0), Int64(PostgresSchema.currentVersion))
        let apps = try await store.listApplications()
        XCTAssertEqual(apps.map(\.code), ["MIGRA-00001"])
        XCTAssertNil(apps.first?.fcmServiceAccount)
        let updated = try await store.updateApplication(code: "MIGRA-00001", ApplicationUpdate(fcmServiceAccount: .some("{}")))
        XCTAssertEqual(updated.fcmServiceAccount, "{}")
        let app = apps[0]
        let message = try await store.createMessages([NewMessageRecord(
            applicationID: app.id, code: "MSG-MIGRA", transactionID: "", sendAtMS: 1000, categoryID: 0,
            targeting: TargetingRecord(), spec: "{}")])[0]
        _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, targetedIncrement: 1,
                                                        startsSending: true, platformCounts: [PlatformCountRecord(deviceType: 3, targeted: 1)]))
        let stats = try await store.statistics(messageID: message.id)
        XCTAssertEqual(stats.platforms, [PlatformCountRecord(deviceType: 3, targeted: 1)])
    }
}
