import Foundation
import Synchronization
@testable import PushwireSQLiteStore
import PushwireStore
import XCTest

/// The syncer's promise: a batch is completed only after an fsync that started after its commit,
/// in the order batches were handed over, and a failed fsync fails that batch and every later one.
final class WALSyncerTests: XCTestCase {
    /// A database path whose `-wal` file exists, as SQLite leaves it in WAL mode.
    private func walBackedPath() throws -> String {
        let path = temporaryDataDirectory() + "/db.sqlite3"
        XCTAssertTrue(FileManager.default.createFile(atPath: path + "-wal", contents: Data()))
        return path
    }

    func testBatchesCompleteInOrderAndOnlyAfterASync() async throws {
        let flushes = Mutex(0)
        let seen = Mutex<[(batch: Int, flushesBefore: Int, error: StoreError?)]>([])
        let syncer = try WALSyncer(databasePath: try walBackedPath(), flush: { descriptor in
            flushes.withLock { $0 += 1 }
            return fdatasync(descriptor)
        }, becameIdle: {})
        let batches = 50
        for batch in 0..<batches {
            syncer.submit([{ error in
                let before = flushes.withLock { $0 }
                seen.withLock { $0.append((batch, before, error)) }
            }])
        }
        syncer.close()
        let completions = seen.withLock { $0 }
        XCTAssertEqual(completions.map(\.batch), Array(0..<batches))
        XCTAssertTrue(completions.allSatisfy { $0.flushesBefore >= 1 && $0.error == nil })
        // Batches handed over during a sync share the next one.
        XCTAssertLessThanOrEqual(flushes.withLock { $0 }, batches)
        XCTAssertEqual(syncer.progress, .idle)
    }

    func testAFailedSyncFailsItsBatchAndEveryLaterOne() async throws {
        let syncer = try WALSyncer(databasePath: try walBackedPath(), flush: { _ in
            errno = EIO
            return -1
        }, becameIdle: {})
        let first = expectation(description: "first batch completed")
        let firstError = Mutex<StoreError?>(nil)
        syncer.submit([{ error in
            firstError.withLock { $0 = error }
            first.fulfill()
        }])
        await fulfillment(of: [first], timeout: 10)
        guard case .unavailable(let reason)? = firstError.withLock({ $0 }) else {
            return XCTFail("the batch of a failed fsync must fail as unavailable, got \(String(describing: firstError.withLock { $0 }))")
        }
        XCTAssertTrue(reason.contains("fdatasync") && reason.contains("restart"), reason)
        XCTAssertNotNil(syncer.failure)

        // No later sync is trusted: the next batch fails at once, without another fsync attempt.
        let laterError = Mutex<StoreError?>(nil)
        syncer.submit([{ error in laterError.withLock { $0 = error } }])
        XCTAssertEqual(laterError.withLock { $0 }, .unavailable(reason))
        syncer.close()
    }

    func testAStoreWhoseDiskCannotSyncFailsWritesInsteadOfAcknowledgingThem() async throws {
        let diskFails = Mutex(false)
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory(), flushWAL: { descriptor in
            guard !diskFails.withLock({ $0 }) else {
                errno = EIO
                return -1
            }
            return fdatasync(descriptor)
        })
        let app = try await store.createApplication(sampleApplication(code: "FSYNC-00001"), initialCategories: [])
        diskFails.withLock { $0 = true }
        for hwid in ["written-as-the-disk-failed", "written-after-the-disk-recovered"] {
            var failure: StoreError?
            do {
                try await store.upsertDevice(sampleDevice(app.id, hwid), tags: [])
            } catch {
                failure = error
            }
            guard case .unavailable(let reason)? = failure, reason.contains("fdatasync") else {
                XCTFail("\(hwid): expected unavailable (fdatasync failed), got \(String(describing: failure))")
                continue
            }
            guard case .notServing = store.health else { return XCTFail("\(hwid): health must be NOT_SERVING after a failed fsync") }
            // A failed fsync is final: the disk "recovering" must not make later writes durable
            // in the store's eyes.
            diskFails.withLock { $0 = false }
        }
        store.close()
    }

    func testAMissingWriteAheadLogIsAClearStartupError() async {
        let path = temporaryDataDirectory() + "/db.sqlite3"
        XCTAssertThrowsError(try WALSyncer(databasePath: path, becameIdle: {})) { error in
            guard case StoreError.cannotOpen(let walPath, _)? = error as? StoreError else {
                return XCTFail("expected cannotOpen, got \(error)")
            }
            XCTAssertEqual(walPath, path + "-wal")
        }
    }
}
