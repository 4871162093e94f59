import CSQLite
import Foundation
import Synchronization
import PushwireSQLiteStore
import PushwireStore
import XCTest

/// Registrations queued together are written by the store's writer as multi-row upserts; these
/// tests hold the writer so that a known set of registrations lands in one batch, then check what
/// a caller sees: each call's own outcome, the fields and order of the rows, untouched unchanged rows.
final class MergedDeviceUpsertTests: XCTestCase {
    func testOneFailingRowInABatchCompletesTheOthers() async throws {
        let dir = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: dir)
        defer { store.close() }
        let app = try createApplication(store, code: "MMMMM-11111")
        // A row SQLite refuses, as a constraint would: only `bad` fails.
        try executeSQL(dir, """
            CREATE TRIGGER refuse_bad BEFORE INSERT ON devices WHEN NEW.hwid = 'bad'
            BEGIN SELECT RAISE(ABORT, 'refused by test'); END
            """)
        let hwids = (0..<40).map { $0 == 17 ? "bad" : "m-\($0)" }
        let outcomes = try registerInOneBatch(store, dir: dir, hwids.map { sampleDevice(app.id, $0) })

        for (hwid, outcome) in zip(hwids, outcomes) {
            if hwid == "bad" {
                guard case .conflict(let message)? = outcome else { return XCTFail("bad: \(String(describing: outcome))") }
                XCTAssertTrue(message.contains("refused by test"), message)
            } else {
                XCTAssertNil(outcome, hwid)
                await asyncAssertEqual(try await store.device(applicationID: app.id, hwid: hwid), sampleDevice(app.id, hwid))
            }
        }
        await asyncAssertNil(try await store.device(applicationID: app.id, hwid: "bad"))
    }

    func testRowsKeepTheirFieldsAndOrder() async throws {
        let dir = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: dir)
        defer { store.close() }
        let app = try createApplication(store, code: "MMMMM-22222")
        // Distinct values in every field, empty and non-ASCII text among them, and the same
        // hwid three times: the last registration queued wins, as it would one by one.
        var devices: [DeviceRecord] = []
        for i in 0..<70 {
            let token = String(format: "%064x", i * 7919)
            let language = i % 3 == 0 ? "" : "de"
            let userID = i % 5 == 0 ? "" : "usér-\(i)"
            let timezone = Int32(i * 60 - 2000)
            devices.append(DeviceRecord(applicationID: app.id, hwid: "o-\(i)", pushToken: token, deviceType: i % 2 == 0 ? 1 : 3,
                                        language: language, timezone: timezone, userID: userID, appVersion: "v\(i).\(i)"))
        }
        devices.insert(sampleDevice(app.id, "twice", token: "aa01"), at: 5)
        devices.insert(sampleDevice(app.id, "twice", token: "bb02"), at: 30)
        devices.append(sampleDevice(app.id, "twice", token: "cc03"))
        let outcomes = try registerInOneBatch(store, dir: dir, devices)

        XCTAssertEqual(outcomes.compactMap { $0 }.count, 0, "\(outcomes)")
        for device in devices where device.hwid != "twice" {
            await asyncAssertEqual(try await store.device(applicationID: app.id, hwid: device.hwid), device)
        }
        await asyncAssertEqual(try await store.device(applicationID: app.id, hwid: "twice")?.pushToken, "cc03")
    }

    func testUnchangedRowsInABatchAreNotRewritten() async throws {
        let dir = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: dir)
        defer { store.close() }
        let app = try createApplication(store, code: "MMMMM-33333")
        let devices = (0..<20).map { sampleDevice(app.id, "u-\($0)") }
        XCTAssertEqual(try registerInOneBatch(store, dir: dir, devices).compactMap { $0 }.count, 0)
        try executeSQL(dir, "UPDATE devices SET updated_at = 0")

        // The same devices again, two of them changed.
        var again = devices
        again[3].pushToken = "ffee"
        again[11].language = "fr"
        XCTAssertEqual(try registerInOneBatch(store, dir: dir, again).compactMap { $0 }.count, 0)
        XCTAssertEqual(try integerSQL(dir, "SELECT count(*) FROM devices WHERE updated_at = 0 AND hwid LIKE 'u-%'"), 18)
        XCTAssertEqual(try integerSQL(dir, "SELECT count(*) FROM devices WHERE updated_at > 0 AND hwid IN ('u-3', 'u-11')"), 2)
        await asyncAssertEqual(try await store.device(applicationID: app.id, hwid: "u-3"), again[3])
        await asyncAssertEqual(try await store.device(applicationID: app.id, hwid: "u-11"), again[11])
    }

    // MARK: - Helpers

    /// Queues `devices` while the writer is held (another connection owns the write lock), so
    /// that they are all in the next batch the writer runs; returns each call's outcome, in order.
    private func registerInOneBatch(_ store: SQLiteStore, dir: String, _ devices: [DeviceRecord]) throws -> [StoreError?] {
        var blocker: OpaquePointer?
        XCTAssertEqual(sqlite3_open(dir + "/" + SQLiteStore.fileName, &blocker), SQLITE_OK)
        defer { sqlite3_close(blocker) }
        XCTAssertEqual(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nil, nil, nil), SQLITE_OK)

        let transactionsBefore = store.statistics.transactions
        let done = DispatchGroup()
        // A first registration takes the writer into its BEGIN, where it waits for the lock…
        done.enter()
        store.upsertDevice(sampleDevice(devices[0].applicationID, "batch-opener")) { _ in done.leave() }
        XCTAssertTrue(waitUntil { store.statistics.queuedWrites == 0 }, "the writer never took the first registration")
        // …while these queue up behind it, in this order.
        let outcomes = Mutex([StoreError?](repeating: nil, count: devices.count))
        for (index, device) in devices.enumerated() {
            done.enter()
            store.upsertDevice(device) { error in
                outcomes.withLock { $0[index] = error }
                done.leave()
            }
        }
        XCTAssertEqual(sqlite3_exec(blocker, "COMMIT", nil, nil, nil), SQLITE_OK)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        // The opener's transaction (which may take these too, run after it), then these.
        XCTAssertLessThanOrEqual(store.statistics.transactions - transactionsBefore, 2)
        return outcomes.withLock { $0 }
    }

    private func createApplication(_ store: SQLiteStore, code: String) throws -> ApplicationRecord {
        let result = Mutex<Result<ApplicationRecord, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(StoreError) {
                let app = try await store.createApplication(sampleApplication(code: code), initialCategories: [])
                result.withLock { $0 = .success(app) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try XCTUnwrap(result.withLock { $0 }).get()
    }
}
