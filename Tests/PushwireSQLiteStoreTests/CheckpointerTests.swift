import Foundation
@testable import PushwireSQLiteStore
import PushwireStore
import XCTest

/// With checkpoints off the writer's thread, the log must still be copied into the database file
/// and start over, so that it stays bounded under a steady stream of writes.
final class CheckpointerTests: XCTestCase {
    func testTheLogStaysBoundedAndReachesTheDatabaseFileUnderSteadyWrites() async throws {
        let directory = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: directory)
        let app = try await store.createApplication(sampleApplication(code: "CKPT1-00001"), initialCategories: [])
        // About four rows to a 4 KiB page: 48 000 rows are about 12 000 pages of table alone,
        // well past the log length at which the writer checkpoints itself.
        let padding = String(repeating: "u", count: 900)
        let rows = 48_000
        let inFlight = 64
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<inFlight {
                group.addTask {
                    for index in stride(from: lane, to: rows, by: inFlight) {
                        var device = sampleDevice(app.id, String(format: "device-%06d", index))
                        device.userID = padding
                        try await store.upsertDevice(device, tags: [])
                    }
                }
            }
            try await group.waitForAll()
        }
        let path = (directory as NSString).appendingPathComponent(SQLiteStore.fileName)
        let frameBytes = 4096 + 24
        let walBytes = try fileSize(path + "-wal")
        XCTAssertLessThanOrEqual(walBytes, (Int(Checkpointer.inlinePages) + 2_000) * frameBytes,
                                 "the log did not start over: \(walBytes / frameBytes) frames")
        XCTAssertGreaterThan(try fileSize(path), 30_000_000, "the checkpoints did not copy the rows into the database file")
        store.close()
        let reopened = try SQLiteStore(dataDirectory: directory)
        await asyncAssertEqual(try await reopened.device(applicationID: app.id, hwid: "device-047999")?.userID, padding)
        reopened.close()
    }

    private func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }
}
