import CSQLite
import Foundation
@testable import PushwireSQLiteStore
import PushwireStore
import XCTest

/// A fresh temporary data directory per test.
func temporaryDataDirectory(_ name: String = #function) -> String {
    let base = NSTemporaryDirectory() + "pushwire-store-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    return base
}

/// A data directory whose file an older pushwired left at schema `version`, holding `rows` (SQL
/// run at that version): what a test of an upgrade opens.
func dataDirectory(atSchemaVersion version: Int, with rows: String) throws -> String {
    let directory = temporaryDataDirectory()
    let connection = try SQLiteConnection(path: directory + "/" + SQLiteStore.fileName)
    for migration in Schema.migrations[0..<version] { try connection.execute(migration) }
    try connection.execute("PRAGMA user_version = \(version);\n" + rows)
    return directory
}

func sampleApplication(code: String) -> ApplicationRecord {
    ApplicationRecord(id: 0, code: code, name: "app \(code)", accessTokenHash: Array(repeating: 7, count: 32),
                      apns: nil, categoriesVersion: 0, createdAt: 1_700_000_000)
}

func sampleDevice(_ applicationID: Int64, _ hwid: String, token: String = "ab01") -> DeviceRecord {
    DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: 1, language: "en",
                 timezone: 3600, userID: "u-\(hwid)", appVersion: "1.0")
}

/// Runs `sql` on a connection of its own to the store's file in `dir` (WAL: alongside the store's).
func executeSQL(_ dir: String, _ sql: String) throws {
    var db: OpaquePointer?
    XCTAssertEqual(sqlite3_open(dir + "/" + SQLiteStore.fileName, &db), SQLITE_OK)
    defer { sqlite3_close(db) }
    sqlite3_busy_timeout(db, 5000)
    XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, String(cString: sqlite3_errmsg(db)))
}

/// The one integer `sql` selects, read on a connection of its own to the store's file in `dir`.
func integerSQL(_ dir: String, _ sql: String) throws -> Int64 {
    var db: OpaquePointer?
    XCTAssertEqual(sqlite3_open(dir + "/" + SQLiteStore.fileName, &db), SQLITE_OK)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    XCTAssertEqual(sqlite3_prepare_v2(db, sql, -1, &statement, nil), SQLITE_OK)
    defer { sqlite3_finalize(statement) }
    XCTAssertEqual(sqlite3_step(statement), SQLITE_ROW)
    return sqlite3_column_int64(statement, 0)
}

/// Polls `condition` every millisecond for up to `timeout` seconds; whether it held.
func waitUntil(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}
