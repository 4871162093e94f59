import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import Synchronization
import XCTest

/// A writer transaction that PostgreSQL aborts as a deadlock victim (40P01) is run again and
/// succeeds, instead of answering its callers UNAVAILABLE.
final class PostgresDeadlockRetryTests: XCTestCase {
    private static func device(_ applicationID: Int64, _ hwid: String) -> DeviceRecord {
        DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: "tok", deviceType: 1, language: "en", timezone: 0,
                     userID: "", appVersion: "1")
    }

    /// A real deadlock: the writer locks row A and waits for B, which another connection holds
    /// and which then asks for A. The writer waited first, so its deadlock check (deadlock_timeout
    /// after it began waiting) finds the cycle and PostgreSQL aborts the writer's transaction;
    /// the retry waits for the other transaction's COMMIT and succeeds.
    func testDeadlockVictimIsRetried() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let app = try await store.createApplication(
            ApplicationRecord(id: 0, code: "AAAAA-00031", name: "App", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                              createdAt: 1_700_000_000), initialCategories: [])
        try await store.upsertDevice(Self.device(app.id, "A"), tags: [])
        try await store.upsertDevice(Self.device(app.id, "B"), tags: [])
        let appID = String(app.id)

        let lockedB = DispatchSemaphore(value: 0)
        let writerWaits = DispatchSemaphore(value: 0)
        let otherDone = DispatchSemaphore(value: 0)
        let otherFailure = Mutex<String?>(nil)
        Thread.detachNewThread {
            defer { otherDone.signal() }
            do {
                let other = try PGConnection(url: url, connectTimeout: 5)
                try other.execute("BEGIN")
                _ = try other.query("UPDATE devices SET badge = 2 WHERE app_id = $1 AND hwid = 'B'", [appID])
                lockedB.signal()
                writerWaits.wait()
                // Closes the cycle; blocks until the writer (the victim) rolled back.
                _ = try other.query("UPDATE devices SET badge = 2 WHERE app_id = $1 AND hwid = 'A'", [appID])
                try other.execute("COMMIT")
            } catch {
                lockedB.signal()
                otherFailure.withLock { $0 = "\(error)" }
            }
        }
        XCTAssertEqual(lockedB.wait(timeout: .now() + 10), .success)
        let write = Task {
            try await store.write { connection throws(StoreError) in
                try pg { () throws(PGError) in
                    _ = try connection.query("UPDATE devices SET badge = 1 WHERE app_id = $1 AND hwid = 'A'", [appID])
                    _ = try connection.query("UPDATE devices SET badge = 1 WHERE app_id = $1 AND hwid = 'B'", [appID])
                }
            }
        }
        // The writer holds A and waits for B.
        let waiting = try waitForBackend(url, running: "UPDATE devices SET badge = 1 WHERE app_id = $1 AND hwid = 'B'",
                                         waitingForLock: true)
        XCTAssertTrue(waiting, "the writer never waited for B's lock")
        writerWaits.signal()
        let result = await write.result
        XCTAssertEqual(otherDone.wait(timeout: .now() + 10), .success)
        XCTAssertNil(otherFailure.withLock { $0 }, "the other connection was the victim: the test did not provoke what it means to")
        switch result {
        case .success: break
        case .failure(let error): XCTFail("the deadlock victim was not retried: \(error)")
        }
        XCTAssertEqual(store.statistics.retriedTransactions, 1)
        // The retry ran after the other transaction: its values are the last.
        let badges = try await store.read { connection throws(StoreError) in
            try pg { () throws(PGError) in
                let rows = try connection.query("SELECT hwid, badge FROM devices WHERE app_id = $1 ORDER BY hwid", [appID])
                return (0..<rows.count).map { "\(rows.text($0, 0))=\(rows.int($0, 1))" }
            }
        }
        XCTAssertEqual(badges, ["A=1", "B=1"])
    }
}
