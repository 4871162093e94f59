import XCTest
@testable import PushwireSQLiteStore
import PushwireStore

/// Issue 18's store changes: targets carry their platform, steps add per-platform counters (also
/// when written together with plain finishing steps), open records name their device's platform,
/// and applications keep FCM credentials across updates and restarts.
final class PlatformCountsTests: XCTestCase {
    private func newMessage(_ appID: Int64, code: String) -> NewMessageRecord {
        NewMessageRecord(applicationID: appID, code: code, transactionID: "", sendAtMS: 1000, categoryID: 0, targeting: TargetingRecord(), spec: "{}")
    }

    func testStepsAddPerPlatformCountsAndTargetsCarryTheirPlatform() async throws {
        let directory = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "PLAT1-00001"), initialCategories: [])
        var android = sampleDevice(app.id, "a1", token: "fcm-token")
        android.deviceType = 3
        try await store.upsertDevice(sampleDevice(app.id, "i1"), tags: [])
        try await store.upsertDevice(android, tags: [])
        let targets = try await store.targets(applicationID: app.id, TargetingRecord(), afterHWID: nil, limit: 10)
        XCTAssertEqual(targets.map(\.deviceType), [3, 1], "a1 (Android) then i1 (iOS), in hwid order")
        await asyncAssertEqual(try await store.target(applicationID: app.id, hwid: "a1")?.deviceType, 3)
        await asyncAssertEqual(try await store.firstTargets(of: [], limit: 1).count, 0)

        let created = try await store.createMessages([newMessage(app.id, code: "P1"), newMessage(app.id, code: "P2")])
        let ids = try await store.recordFanOutStep(FanOutStep(
            messageID: created[0].id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a1", attempt: 1), NewDeliveryRecord(hwid: "i1", attempt: 1)],
            cursor: "i1", targetedIncrement: 2, startsSending: true,
            platformCounts: [PlatformCountRecord(deviceType: 1, targeted: 1), PlatformCountRecord(deviceType: 3, targeted: 1)]))
        // The records' platforms as stored now: what a crash's Interrupted outcomes count under.
        await asyncAssertEqual(try await store.openDeliveries(messageID: created[0].id).map(\.deviceType), [3, 1])
        // A plain finishing step (only sents) of P2 and a failing one of P1, in one job.
        let other = try await store.recordFanOutStep(FanOutStep(
            messageID: created[1].id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "i1", attempt: 1)], cursor: "i1",
            targetedIncrement: 1, startsSending: true, platformCounts: [PlatformCountRecord(deviceType: 1, targeted: 1)]))
        _ = try await store.recordFanOutSteps([
            FanOutStep(messageID: created[0].id, applicationID: app.id, results: [
                DeliveryResultRecord(deliveryID: ids[0], hwid: "a1", result: .failed(reason: "NoCredentialsForPlatform", invalidToken: false, refusedToken: nil)),
                DeliveryResultRecord(deliveryID: ids[1], hwid: "i1", result: .sent),
            ], finish: true, platformCounts: [PlatformCountRecord(deviceType: 1, sent: 1), PlatformCountRecord(deviceType: 3, failed: 1)]),
            FanOutStep(messageID: created[1].id, applicationID: app.id, results: [DeliveryResultRecord(deliveryID: other[0], hwid: "i1", result: .sent)],
                       finish: true, platformCounts: [PlatformCountRecord(deviceType: 1, sent: 1)]),
        ])
        let first = try await store.statistics(messageID: created[0].id)
        XCTAssertEqual(first.platforms, [PlatformCountRecord(deviceType: 1, targeted: 1, sent: 1),
                                         PlatformCountRecord(deviceType: 3, targeted: 1, failed: 1)])
        XCTAssertEqual([first.targeted, first.sent, first.failed], [2, 1, 1])
        await asyncAssertEqual(try await store.statistics(messageID: created[1].id).platforms, [PlatformCountRecord(deviceType: 1, targeted: 1, sent: 1)],
                       "a plain finishing step adds its platform counts too")
    }

    /// The multi-row statements cut a job's rows into chunks of 64, 32 … 1: 100 messages' platform
    /// counts and plain finishing steps in one job each (64 + 32 + 4), and a platform named twice
    /// in one step, which one statement must add up rather than refuse or keep only once.
    func testPlatformCountsAndPlainFinishesOfManyMessagesInOneJob() async throws {
        let directory = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "PLAT1-00003"), initialCategories: [])
        try await store.upsertDevice(sampleDevice(app.id, "i1"), tags: [])
        let created = try await store.createMessages((0..<100).map { newMessage(app.id, code: "M\($0)") })
        let handedOver = try await store.recordFanOutSteps(created.map { message in
            FanOutStep(messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "i1", attempt: 1)], cursor: "i1",
                       targetedIncrement: 1, startsSending: true,
                       platformCounts: [PlatformCountRecord(deviceType: 1, targeted: 1), PlatformCountRecord(deviceType: 1, targeted: 2)])
        })
        _ = try await store.recordFanOutSteps(zip(created, handedOver).map { message, ids in
            FanOutStep(messageID: message.id, applicationID: app.id, results: [DeliveryResultRecord(deliveryID: ids[0], hwid: "i1", result: .sent)],
                       finish: true, platformCounts: [PlatformCountRecord(deviceType: 1, sent: 1)])
        })
        let stored = try await store.messages(ids: created.map(\.id))
        for message in created {
            let statistics = try await store.statistics(messageID: message.id)
            XCTAssertEqual(statistics.platforms, [PlatformCountRecord(deviceType: 1, targeted: 3, sent: 1)], message.code)
            XCTAssertEqual([statistics.targeted, statistics.sent, statistics.failed], [1, 1, 0], message.code)
            XCTAssertEqual(stored[message.id]?.status, .done, message.code)
        }
    }

    func testFCMCredentialsAreKeptUpdatedAndClearedAcrossRestarts() async throws {
        let directory = temporaryDataDirectory()
        var record = sampleApplication(code: "PLAT1-00002")
        record.fcmServiceAccount = #"{"project_id":"one"}"#
        do {
            let store = try SQLiteStore(dataDirectory: directory)
            defer { store.close() }
            let created = try await store.createApplication(record, initialCategories: [])
            XCTAssertEqual(created.fcmServiceAccount, #"{"project_id":"one"}"#)
            let renamed = try await store.updateApplication(code: record.code, ApplicationUpdate(name: "renamed"))
            XCTAssertEqual(renamed.fcmServiceAccount, #"{"project_id":"one"}"#, "nil keeps it")
            _ = try await store.updateApplication(code: record.code, ApplicationUpdate(fcmServiceAccount: .some(#"{"project_id":"two"}"#)))
        }
        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        await asyncAssertEqual(try await store.listApplications().first?.fcmServiceAccount, #"{"project_id":"two"}"#)
        let cleared = try await store.updateApplication(code: record.code, ApplicationUpdate(fcmServiceAccount: .some(nil)))
        XCTAssertNil(cleared.fcmServiceAccount)
        await asyncAssertNil(try await store.listApplications().first?.fcmServiceAccount)
    }
}
