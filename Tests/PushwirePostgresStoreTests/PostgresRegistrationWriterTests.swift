import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// New registrations go to registration writers of their own: they commit while the writer is
/// busy with another transaction; many groups over the same devices neither deadlock nor
/// reorder one device's registrations (a device's always go to the same registration writer).
final class PostgresRegistrationWriterTests: XCTestCase {
    private static func device(_ applicationID: Int64, _ hwid: String, token: String = "tok") -> DeviceRecord {
        DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: 1, language: "en", timezone: 0,
                     userID: "", appVersion: "1")
    }

    private static func register(_ store: PostgresStore, _ device: DeviceRecord) async -> StoreError? {
        await withCheckedContinuation { continuation in
            store.upsertDevice(device) { continuation.resume(returning: $0) }
        }
    }

    /// A registration answered while the writer spends a second in a transaction (before, it
    /// waited behind it on the one writer connection).
    func testRegistrationCommitsWhileTheWriterIsBusy() async throws {
        let url = try freshDatabaseURL()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let app = try await store.createApplication(
            ApplicationRecord(id: 0, code: "AAAAA-00021", name: "App", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                              createdAt: 1_700_000_000), initialCategories: [])
        let busy = Task {
            try await store.write { connection throws(StoreError) in
                try pg { () throws(PGError) in _ = try connection.query("SELECT pg_sleep(1.5)") }
            }
        }
        XCTAssertTrue(try waitForBackend(url, running: "SELECT pg_sleep(1.5)"), "the writer never started its sleep")
        let started = Date()
        let error = await Self.register(store, Self.device(app.id, "while-busy"))
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertNil(error)
        XCTAssertLessThan(elapsed, 1.0, "the registration waited \(elapsed) s for the writer")
        try await busy.value
        let stored = try await store.device(applicationID: app.id, hwid: "while-busy")
        XCTAssertEqual(stored, Self.device(app.id, "while-busy"))
    }

    /// Many concurrent groups over the same devices, in both orders, through several
    /// registration writers: no deadlock, every call succeeds; and registrations of one device
    /// queued one after the other commit in that order.
    func testOverlappingGroupsDoNotDeadlock() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL(), registrationWriters: 4)
        defer { store.close() }
        let app = try await store.createApplication(
            ApplicationRecord(id: 0, code: "AAAAA-00022", name: "App", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                              createdAt: 1_700_000_000), initialCategories: [])
        let hwids = (0..<50).map { "shared-\($0)" }
        let failures = await withTaskGroup(of: StoreError?.self) { group in
            for round in 0..<20 {
                for hwid in round % 2 == 0 ? hwids : hwids.reversed() {
                    group.addTask { await Self.register(store, Self.device(app.id, hwid, token: "t\(round)")) }
                }
            }
            var failures: [StoreError] = []
            for await case let error? in group { failures.append(error) }
            return failures
        }
        XCTAssertEqual(failures.count, 0, "\(failures.prefix(3))")
        let stored = try await store.device(applicationID: app.id, hwid: "shared-7")
        XCTAssertTrue(stored?.pushToken.hasPrefix("t") == true)
        // Queued in this order (completion calls return once queued): the last one wins.
        let done = AsyncStream<StoreError?>.makeStream()
        for round in 0..<40 {
            for hwid in hwids { store.upsertDevice(Self.device(app.id, hwid, token: "order-\(round)")) { done.continuation.yield($0) } }
        }
        var answered = 0
        for await error in done.stream {
            XCTAssertNil(error)
            answered += 1
            if answered == 40 * hwids.count { break }
        }
        for hwid in hwids {
            let last = try await store.device(applicationID: app.id, hwid: hwid)
            XCTAssertEqual(last?.pushToken, "order-39", hwid)
        }
    }
}
