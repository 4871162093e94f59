import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// The store's connections run on `WorkerThread`s, named as `top -H` shows them, and a store
/// closed on one of its own threads (from a completion) does not wait for itself.
final class PostgresWorkerThreadTests: XCTestCase {
    private static func device(_ applicationID: Int64, _ hwid: String, token: String) -> DeviceRecord {
        DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: 1, language: "en", timezone: 0,
                     userID: "", appVersion: "1")
    }

    /// The kernel's names of this process's threads.
    private static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        // /proc files report size 0: read to the end rather than by their size.
        return tasks.compactMap { task -> String? in
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/task/\(task)/comm") else { return nil }
            defer { try? handle.close() }
            return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    func testThreadsAreNamedAndCloseOnAWorkerDoesNotWaitForItself() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL(), readers: 1, registrationWriters: 2)
        // Each thread names itself once it runs.
        let expected = ["pw-pg-writer", "pw-pg-reg-0", "pw-pg-reg-1", "pw-pg-deliver", "pw-pg-read-0", "pw-pg-listener"]
        _ = await eventually(timeout: 5) { Set(expected).isSubset(of: Self.threadNames()) }
        let names = Self.threadNames()
        for name in expected {
            XCTAssertTrue(names.contains(name), "no thread \(name) in \(names.filter { $0.hasPrefix("pw-pg") })")
        }
        let app = try await store.createApplication(
            ApplicationRecord(id: 0, code: "AAAAA-00033", name: "App", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                              createdAt: 1_700_000_000), initialCategories: [])
        let closed = DispatchSemaphore(value: 0)
        store.upsertDevice(Self.device(app.id, "closer", token: "t")) { _ in
            store.close()  // on the registration writer's thread
            closed.signal()
        }
        XCTAssertEqual(closed.wait(timeout: .now() + 10), .success, "close on a worker's thread waited for itself")
        store.close()
    }
}
