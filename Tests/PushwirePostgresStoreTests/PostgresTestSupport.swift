import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// A new, empty database on the test run's PostgreSQL, so that each test starts from nothing;
/// returns its URL.
func freshDatabaseURL() throws -> String {
    let base = try testDatabaseURL()
    let name = "pwtest_\(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF)"
    try PostgresStore.createDatabase(named: name, using: base)
    return PostgresStore.url(base, database: name)
}

/// Waits until `condition` holds, up to `timeout` seconds.
func eventually(timeout: TimeInterval = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return await condition()
}

/// Waits until another connection to the database at `url` is running `query` (as
/// pg_stat_activity shows it), and with `waitingForLock` is waiting for a lock in it; up to
/// `timeout` seconds. A test that needs a writer to be inside a statement waits for this instead
/// of sleeping for a guessed time.
func waitForBackend(_ url: String, running query: String, waitingForLock: Bool = false,
                    timeout: TimeInterval = 10) throws -> Bool {
    let observer = try PGConnection(url: url, connectTimeout: 5)
    let sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
        + "AND state = 'active' AND query = $1" + (waitingForLock ? " AND wait_event_type = 'Lock'" : "")
    return try waitUntil(timeout: timeout) { try observer.query(sql, [query]).int(0, 0) > 0 }
}

/// A fresh database as a binary of schema `version` left it (its migrations only, the version
/// recorded), with one application coded `code`: the start of a migration test.
func databaseAtSchemaVersion(_ version: Int, applicationCode code: String) throws -> (url: String, connection: PGConnection) {
    let url = try freshDatabaseURL()
    let connection = try PGConnection(url: url, connectTimeout: 5)
    try connection.execute("CREATE TABLE pushwire_schema (version integer NOT NULL)")
    for migration in PostgresSchema.migrations.prefix(version) { try connection.execute(migration) }
    try connection.query("INSERT INTO pushwire_schema (version) VALUES ($1)", [String(version)])
    try connection.query("""
        INSERT INTO applications (code, name, access_token_hash, categories_version, created_at)
        VALUES ($1, 'migrated', '\\x00'::bytea, 1, 1700000000)
        """, [code])
    return (url, connection)
}

/// An application created on `store`, coded `code`, without APNs settings or categories.
func createApplication(on store: PostgresStore, code: String) async throws -> ApplicationRecord {
    try await store.createApplication(
        ApplicationRecord(id: 0, code: code, name: "App \(code)", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                          createdAt: 1_700_000_000), initialCategories: [])
}
