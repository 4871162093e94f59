import XCTest
@testable import PushwireSQLiteStore
import PushwireStore

/// A message's counters of its one platform kept in its row (`RowPlatforms`): what the process
/// does not remember (after a restart, or a step of another platform) moves them to
/// `message_platforms` before anything else is counted, and a database of schema 6 keeps the
/// counters it had. The contract suite covers the paths within one process on both engines.
final class RowPlatformsTests: XCTestCase {
    private func newMessage(_ appID: Int64, code: String) -> NewMessageRecord {
        NewMessageRecord(applicationID: appID, code: code, transactionID: "", sendAtMS: 1000, categoryID: 0, targeting: TargetingRecord(), spec: "{}")
    }

    private func firstStep(_ messageID: Int64, _ appID: Int64, _ hwid: String, type: Int32) -> FanOutStep {
        FanOutStep(messageID: messageID, applicationID: appID, handOver: [NewDeliveryRecord(hwid: hwid, attempt: 1)], cursor: hwid,
                   targetedIncrement: 1, startsSending: true, platformCounts: [PlatformCountRecord(deviceType: type, targeted: 1)])
    }

    private func rowPlatform(_ directory: String, _ messageID: Int64) throws -> Int64? {
        let connection = try SQLiteConnection(path: directory + "/" + SQLiteStore.fileName, readOnly: true, create: false)
        let statement = try connection.statement("SELECT platform_device_type FROM messages WHERE id = ?1").bind(.int(messageID))
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int(0)
    }

    func testClassifiesAStepsCountsAgainstItsTotals() {
        func step(_ counts: [PlatformCountRecord], targeted: Int = 0, sent: Int = 0) -> StepPlatforms {
            let results = (0..<sent).map { DeliveryResultRecord(deliveryID: UInt64($0), hwid: "h\($0)", result: .sent) }
            let step = FanOutStep(messageID: 1, applicationID: 1, results: results, targetedIncrement: targeted, platformCounts: counts)
            return StepPlatforms(step, FanOutOutcomeCounts(step.results))
        }
        XCTAssertEqual(step([]), .nothing)
        XCTAssertEqual(step([], targeted: 1), .mixed, "totals without per-platform counts")
        XCTAssertEqual(step([PlatformCountRecord(deviceType: 1, targeted: 2)], targeted: 2), .one(1))
        XCTAssertEqual(step([PlatformCountRecord(deviceType: 1, targeted: 1), PlatformCountRecord(deviceType: 1, sent: 1)], targeted: 1, sent: 1), .one(1))
        XCTAssertEqual(step([PlatformCountRecord(deviceType: 1, targeted: 1), PlatformCountRecord(deviceType: 3, targeted: 1)], targeted: 2), .mixed)
        XCTAssertEqual(step([PlatformCountRecord(deviceType: 1, targeted: 3)], targeted: 1), .mixed, "counts that are not the totals")
        XCTAssertEqual(step([PlatformCountRecord(deviceType: 1, sent: 1)], sent: 2), .mixed)
        XCTAssertEqual(step([PlatformCountRecord(deviceType: 1)]), .one(1), "a platform counted with zeros is still that platform")
    }

    /// A restart forgets which rows count one platform: a plain finish, a first step started
    /// again and a step of another platform each find the row's counts and keep them.
    func testCountersInTheRowSurviveARestartWhateverComesNext() async throws {
        let directory = temporaryDataDirectory()
        var ids: [Int64] = []
        var handedOver: [[UInt64]] = []
        var appID: Int64 = 0
        do {
            let store = try SQLiteStore(dataDirectory: directory)
            defer { store.close() }
            let app = try await store.createApplication(sampleApplication(code: "ROWPL-00001"), initialCategories: [])
            appID = app.id
            var android = sampleDevice(app.id, "a1", token: "fcm-token")
            android.deviceType = 3
            try await store.upsertDevice(sampleDevice(app.id, "i1"), tags: [])
            try await store.upsertDevice(android, tags: [])
            ids = try await store.createMessages((0..<3).map { newMessage(app.id, code: "R\($0)") }).map(\.id)
            handedOver = try await store.recordFanOutSteps(ids.map { firstStep($0, app.id, "i1", type: 1) })
        }
        for id in ids { XCTAssertEqual(try rowPlatform(directory, id), 1, "flagged by its first step") }
        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        _ = try await store.recordFanOutSteps([
            // 0: a plain finish of the row's platform, not remembered.
            FanOutStep(messageID: ids[0], applicationID: appID, results: [DeliveryResultRecord(deliveryID: handedOver[0][0], hwid: "i1", result: .sent)],
                       finish: true, platformCounts: [PlatformCountRecord(deviceType: 1, sent: 1)]),
            // 1: started again (a resumed first step) with the same platform.
            firstStep(ids[1], appID, "i1", type: 1),
            // 2: a target of another platform.
            FanOutStep(messageID: ids[2], applicationID: appID, handOver: [NewDeliveryRecord(hwid: "a1", attempt: 1)], cursor: "a1",
                       targetedIncrement: 1, platformCounts: [PlatformCountRecord(deviceType: 3, targeted: 1)]),
        ])
        await asyncAssertEqual(try await store.statistics(messageID: ids[0]).platforms, [PlatformCountRecord(deviceType: 1, targeted: 1, sent: 1)])
        await asyncAssertEqual(try await store.statistics(messageID: ids[1]).platforms, [PlatformCountRecord(deviceType: 1, targeted: 2)])
        await asyncAssertEqual(try await store.statistics(messageID: ids[2]).platforms,
                               [PlatformCountRecord(deviceType: 1, targeted: 1), PlatformCountRecord(deviceType: 3, targeted: 1)])
        for id in ids { XCTAssertEqual(try rowPlatform(directory, id), -1, "moved to the table") }
    }

    /// A file of schema 6 (counters only in `message_platforms`): a message still sending keeps
    /// its counters when its first step is written again after the upgrade.
    func testASchema6MessageKeepsItsCountersAfterTheUpgrade() async throws {
        let directory = try dataDirectory(atSchemaVersion: 6, with: """
            INSERT INTO applications (id, code, name, access_token_hash, categories_version, created_at) VALUES (1, 'ROWPL-00002', 'six', x'00', 1, 0);
            INSERT INTO messages (id, app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, targeted, created_at)
                VALUES (1, 1, 'OLD', '', 2, 0, 0, '{}', '{}', 1, 0);
            INSERT INTO message_platforms (message_id, device_type, targeted) VALUES (1, 1, 1);
            """)
        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        _ = try await store.recordFanOutStep(firstStep(1, 1, "i1", type: 1))
        await asyncAssertEqual(try await store.statistics(messageID: 1).platforms, [PlatformCountRecord(deviceType: 1, targeted: 2)])
    }
}
