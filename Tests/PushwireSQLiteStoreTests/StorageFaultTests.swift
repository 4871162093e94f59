import CSQLite
import Foundation
@testable import PushwireSQLiteStore
import PushwireStore
import XCTest

/// Issue 16, item 7: storage faults are reported as what they are, and a clean stop leaves the
/// database whole in its file.
final class StorageFaultTests: XCTestCase {
    private func storeWithDevices(_ count: Int, directory: String) async throws -> (SQLiteStore, ApplicationRecord) {
        let store = try SQLiteStore(dataDirectory: directory)
        let app = try await store.createApplication(sampleApplication(code: "FAULT-00001"), initialCategories: [])
        for index in 0..<count {
            try await store.upsertDevice(sampleDevice(app.id, String(format: "device-%05d", index)), tags: [.set("n", .int(Int64(index)))])
        }
        return (store, app)
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    /// The rows of `devices` in the database *file* alone: a copy of it without its log.
    private func devicesInFileAlone(_ directory: String) throws -> Int {
        let copy = temporaryDataDirectory()
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: directory + "/" + SQLiteStore.fileName, toPath: copy + "/db")
        var db: OpaquePointer?
        guard sqlite3_open_v2(copy + "/db", &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return -1 }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM devices", -1, &statement, nil) == SQLITE_OK else { return -1 }
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : -1
    }

    func testACleanCloseCheckpointsTheLogIntoTheDatabaseFile() async throws {
        let directory = temporaryDataDirectory()
        let (store, _) = try await storeWithDevices(200, directory: directory)
        // Readers still open, as in a server: SQLite's own checkpoint at the last close never runs.
        _ = try await store.listApplications()
        store.close()
        XCTAssertEqual(fileSize(directory + "/" + SQLiteStore.fileName + "-wal"), 0, "the log is emptied")
        XCTAssertGreaterThan(fileSize(directory + "/" + SQLiteStore.fileName), 4096)
        XCTAssertEqual(try devicesInFileAlone(directory), 200, "every device is in the database file itself")
        withExtendedLifetime(store) {}
    }

    /// A full disk fails the write as `storageFull` (RESOURCE_EXHAUSTED on the wire), makes the
    /// store not serving, and the first write that finds room again makes it serve.
    func testAFullDiskIsStorageFullAndNotServingUntilAWriteSucceeds() async throws {
        let directory = temporaryDataDirectory()
        let (store, app) = try await storeWithDevices(10, directory: directory)
        defer { store.close() }
        // The database may not grow past its current size: as a full disk would answer.
        try await store.writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in try connection.execute("PRAGMA max_page_count = 1") }
        }
        var failure: StoreError?
        for index in 0..<2_000 where failure == nil {
            do {
                try await store.upsertDevice(sampleDevice(app.id, String(format: "more-%05d-%@", index, String(repeating: "x", count: 200))), tags: [])
            } catch {
                failure = error
            }
        }
        guard case .storageFull(let reason)? = failure else { return XCTFail("expected storageFull, got \(String(describing: failure))") }
        XCTAssertTrue(reason.contains("full"), reason)
        guard case .notServing(let why) = store.health else { return XCTFail("a full disk must make the store not serving") }
        XCTAssertTrue(why.contains("out of space"), why)

        try await store.writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in try connection.execute("PRAGMA max_page_count = 1073741823") }
        }
        try await store.upsertDevice(sampleDevice(app.id, "after-the-disk-was-freed"), tags: [])
        XCTAssertEqual(store.health, .serving, "serving again once a write succeeds")
    }

    /// Damaged pages answer `dataLoss`, and `check` names the damage.
    func testCorruptPagesAreDataLossAndTheCheckFindsThem() async throws {
        let directory = temporaryDataDirectory()
        let (store, app) = try await storeWithDevices(2_000, directory: directory)
        store.close()
        let whole = try SQLiteStore.check(dataDirectory: directory)
        XCTAssertTrue(whole.isWhole, "\(whole.problems)")
        XCTAssertGreaterThan(whole.pages, 10)

        // Overwrite the middle of the file (the devices' pages), keeping the header, the schema
        // and the tables' root pages (the first 32: every table and index made a root page when
        // it was created, before any device was stored).
        let path = directory + "/" + SQLiteStore.fileName
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        let size = UInt64(fileSize(path))
        for offset in stride(from: 4096 * 32, to: size - 4096, by: 4096 * 2) {
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        }
        try handle.close()

        let damaged = try SQLiteStore.check(dataDirectory: directory)
        XCTAssertFalse(damaged.isWhole, "the check finds the damage")

        let reopened = try SQLiteStore(dataDirectory: directory)
        defer { reopened.close() }
        var failure: StoreError?
        do {
            _ = try await reopened.targets(applicationID: app.id, TargetingRecord(), afterHWID: nil, limit: 5_000)
        } catch {
            failure = error
        }
        guard case .dataLoss(let reason)? = failure else { return XCTFail("expected dataLoss, got \(String(describing: failure))") }
        XCTAssertTrue(reason.contains("damaged"), reason)
    }

    func testTheCheckOfAMissingDirectoryCreatesNothing() throws {
        let directory = temporaryDataDirectory() + "/missing"
        XCTAssertThrowsError(try SQLiteStore.check(dataDirectory: directory)) { error in
            guard case StoreError.cannotOpen(_, let reason) = error else { return XCTFail("unexpected \(error)") }
            XCTAssertTrue(reason.contains("not a Pushwire data directory"), reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory))
    }

    func testRoutineFailuresAreNotLoggedButDamageIs() {
        XCTAssertNil(SQLiteDiagnostics.level(code: SQLITE_CONSTRAINT | (8 << 8)), "a name taken is answered, not logged")
        XCTAssertNil(SQLiteDiagnostics.level(code: SQLITE_SCHEMA))
        XCTAssertEqual(SQLiteDiagnostics.level(code: SQLITE_NOTICE | (1 << 8)), .notice, "SQLITE_NOTICE_RECOVER_WAL")
        XCTAssertEqual(SQLiteDiagnostics.level(code: SQLITE_CORRUPT), .error)
        XCTAssertEqual(SQLiteDiagnostics.level(code: SQLITE_IOERR | (4 << 8)), .error)
    }
}
