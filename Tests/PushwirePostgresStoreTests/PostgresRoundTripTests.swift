import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import Synchronization
import XCTest

/// The small messages' bookkeeping costs a constant number of round trips per writer batch, not
/// one or more per message: concurrent CreateMessage calls share one INSERT, a list of fan-out
/// steps is one statement per kind of change, and the first targets of many messages naming
/// their devices are one read. Each test also checks that what was written is what the one-by-one
/// statements wrote.
final class PostgresRoundTripTests: XCTestCase {
    private func application(_ code: String) -> ApplicationRecord {
        ApplicationRecord(id: 0, code: code, name: "App \(code)", accessTokenHash: [1, 2, 0, 255], apns: nil, categoriesVersion: 0,
                          createdAt: 1_700_000_000)
    }

    private func message(_ applicationID: Int64, _ index: Int, transactionID: String = "", hwids: [String] = ["hw-0"]) -> NewMessageRecord {
        NewMessageRecord(applicationID: applicationID, code: "RT-\(UInt32.random(in: 0...UInt32.max))-\(index)", transactionID: transactionID,
                         sendAtMS: 0, categoryID: 0, targeting: TargetingRecord(hwids: hwids), spec: "{}")
    }

    /// The messages' creations submitted together, from one loop, as calls that arrive at once
    /// are: the writer groups what queued while it wrote. (Each from a task of its own, they
    /// reached the writer as the cooperative pool ran them, and on a loaded host in dribs: 98
    /// round trips for 200 messages once.)
    private func create(_ store: PostgresStore, _ messages: [NewMessageRecord]) async -> [Result<[MessageRecord], StoreError>] {
        let results = Mutex([Result<[MessageRecord], StoreError>?](repeating: nil, count: messages.count))
        let answered = DispatchGroup()
        for (index, message) in messages.enumerated() {
            answered.enter()
            store.createMessages([message]) { result in
                results.withLock { $0[index] = result }
                answered.leave()
            }
        }
        await withCheckedContinuation { continuation in answered.notify(queue: .global()) { continuation.resume() } }
        return results.withLock { $0 }.map { $0 ?? .failure(.internalError("no answer")) }
    }

    /// 200 concurrent CreateMessage calls: a few writer batches of one INSERT each (one-by-one
    /// INSERTs were 200 round trips and more); transaction ids taken before, or twice in the
    /// batch, answer with the stored message; ids are distinct.
    func testConcurrentMessageCreationsShareStatements() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00011"), initialCategories: [])
        let earlier = try await store.createMessages([message(app.id, 0, transactionID: "taken")])[0]
        var messages = (0..<200).map { message(app.id, $0 + 1) }
        messages[10] = message(app.id, 11, transactionID: "taken")
        messages[20] = message(app.id, 21, transactionID: "twice")
        messages[21] = message(app.id, 22, transactionID: "twice")
        let before = store.writerRoundTrips
        let results = await create(store, messages)
        let roundTrips = store.writerRoundTrips - before
        let records = try results.map { try $0.get()[0] }
        XCTAssertLessThan(roundTrips, 40, "\(roundTrips) round trips on the writer for 200 messages")
        XCTAssertEqual(records[10], earlier)
        XCTAssertEqual(records[20].id, records[21].id, "one transaction id, two messages")
        XCTAssertEqual(Set(records.map(\.id)).count, 199)
        for (index, record) in records.enumerated() where index != 10 && index != 21 {
            XCTAssertEqual(record.code, messages[index].code)
            let stored = try await store.message(id: record.id)
            XCTAssertEqual(stored, record)
        }
        // Creation order: a call's message has a larger id than every earlier call's.
        let later = try await store.createMessages([message(app.id, 999)])[0]
        XCTAssertGreaterThan(later.id, records.map(\.id).max() ?? 0)
    }

    /// A writer batch of creations and nothing else is its own transaction: one round trip, no
    /// BEGIN and no COMMIT; what it wrote is there.
    func testALoneBatchOfCreationsIsOneRoundTrip() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00014"), initialCategories: [])
        _ = try await store.createMessages([message(app.id, 0)])  // prepares the INSERT
        let before = store.writerRoundTrips
        let created = try await store.createMessages([message(app.id, 1), message(app.id, 2)])
        XCTAssertEqual(store.writerRoundTrips - before, 1)
        for record in created {
            let stored = try await store.message(id: record.id)
            XCTAssertEqual(stored, record)
        }
    }

    /// A message that cannot be written (a NUL byte) among concurrent creations fails alone.
    func testFailingCreationInAGroupFailsAlone() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00012"), initialCategories: [])
        var messages = (0..<64).map { message(app.id, $0) }
        messages[31].spec = "bad\u{0}spec"
        let results = await create(store, messages)
        for (index, result) in results.enumerated() {
            switch result {
            case .success: XCTAssertNotEqual(index, 31)
            case .failure(let error): XCTAssertEqual(index, 31, "\(error)")
            }
        }
    }

    /// 64 messages' first targets, first steps and finishing steps: one read, and a handful of
    /// statements per step list (one by one, each step was four to six); the counters, outcomes,
    /// dead tokens, badges and per-platform counts are those of the steps; a message cancelled
    /// before its first step gets no ids and writes nothing.
    func testFanOutStepsOfManyMessagesShareStatements() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00013"), initialCategories: [])
        for index in 0..<640 {
            try await store.upsertDevice(DeviceRecord(applicationID: app.id, hwid: String(format: "hw-%03d", index), pushToken: "tok-\(index)",
                                                      deviceType: Int32(1 + index % 2), language: "en", timezone: 0, userID: "",
                                                      appVersion: "1"), tags: [])
        }
        let created = try await store.createMessages((0..<64).map { index in
            message(app.id, index, hwids: (0..<10).map { String(format: "hw-%03d", index * 10 + $0) } + ["unknown-\(index)"])
        })
        let cancelled = created[5]
        _ = try await store.cancelMessage(applicationID: app.id, code: cancelled.code)

        let readsBefore = store.readerRoundTrips
        let targets = try await store.firstTargets(of: created, limit: 100)
        XCTAssertLessThanOrEqual(store.readerRoundTrips - readsBefore, 2, "first targets of 64 messages")
        for (index, list) in targets.enumerated() {
            XCTAssertEqual(list.map(\.hwid), (0..<10).map { String(format: "hw-%03d", index * 10 + $0) })
        }

        let lease = MessageLease(owner: "test-owner", nowMS: 1, durationMS: 60_000)
        let first = zip(created, targets).map { message, list in
            FanOutStep(messageID: message.id, applicationID: app.id, handOver: list.map { NewDeliveryRecord(hwid: $0.hwid, attempt: 1) },
                       cursor: list.last?.hwid, targetedIncrement: list.count, badges: list.map { ($0.hwid, 7) },
                       startsSending: true, platformCounts: [PlatformCountRecord(deviceType: 1, targeted: 5),
                                                             PlatformCountRecord(deviceType: 2, targeted: 5)], lease: lease)
        }
        var writesBefore = store.writerRoundTrips
        let ids = try await store.recordFanOutSteps(first)
        XCTAssertLessThanOrEqual(store.writerRoundTrips - writesBefore, 12, "first steps of 64 messages")
        XCTAssertEqual(ids[5], [], "a cancelled message's first step hands over nothing")
        XCTAssertEqual(Set(ids.joined()).count, 630)
        for list in ids where !list.isEmpty { XCTAssertEqual(list, list.sorted()) }

        var finishing: [FanOutStep] = []
        for (index, message) in created.enumerated() where index != 5 {
            let results = zip(ids[index], targets[index]).enumerated().map { position, pair in
                DeliveryResultRecord(deliveryID: pair.0, hwid: pair.1.hwid, result: position == 0
                    ? .failed(reason: "BadDeviceToken", invalidToken: true, refusedToken: RefusedToken(token: pair.1.pushToken, state: .invalid, sinceMS: 1_754_000_000_000))
                    : position == 1 ? .failed(reason: "TooBig", invalidToken: false, refusedToken: nil) : .sent)
            }
            finishing.append(FanOutStep(messageID: message.id, applicationID: app.id, results: results, finish: true,
                                        platformCounts: [PlatformCountRecord(deviceType: 1, sent: 8, failed: 2, invalidTokens: 1)],
                                        lease: lease))
        }
        writesBefore = store.writerRoundTrips
        _ = try await store.recordFanOutSteps(finishing)
        XCTAssertLessThanOrEqual(store.writerRoundTrips - writesBefore, 12, "finishing steps of 63 messages")

        let stats = try await store.statistics(messageID: created[7].id)
        XCTAssertEqual([stats.targeted, stats.sent, stats.failed, stats.invalidTokens], [10, 8, 2, 1])
        XCTAssertEqual(stats.failures.map(\.reason), ["BadDeviceToken", "TooBig"])
        XCTAssertEqual(stats.platforms, [PlatformCountRecord(deviceType: 1, targeted: 5, sent: 8, failed: 2, invalidTokens: 1),
                                         PlatformCountRecord(deviceType: 2, targeted: 5)])
        let done = try await store.message(id: created[7].id)
        XCTAssertEqual(done?.status, .done)
        XCTAssertEqual(done?.cursor, "hw-079")
        let skipped = try await store.statistics(messageID: cancelled.id)
        XCTAssertEqual(skipped.targeted, 0)
        // The dead token keeps its device out of the next targets; the badges were written.
        let again = try await store.firstTargets(of: [created[7]], limit: 100)
        XCTAssertEqual(again[0].map(\.hwid), (1..<10).map { String(format: "hw-%03d", 70 + $0) })
        XCTAssertEqual(again[0].map(\.badge), [Int64](repeating: 7, count: 9))
        let refusal = try await store.tokenRefusal(applicationID: app.id, hwid: "hw-070")
        XCTAssertEqual(refusal?.state, .invalid, "the batched steps keep how the token was refused")
        XCTAssertEqual(refusal?.sinceMS, 1_754_000_000_000)
        let stillOpen = try await store.openDeliveries(messageID: created[7].id)
        XCTAssertEqual(stillOpen, [])
    }

    /// A step list in which one message's lease is another server's fails as a whole.
    func testLostLeaseFailsTheWholeStepList() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00014"), initialCategories: [])
        let created = try await store.createMessages((0..<3).map { message(app.id, $0) })
        let mine = MessageLease(owner: "mine", nowMS: 1, durationMS: 60_000)
        let theirs = MessageLease(owner: "theirs", nowMS: 1, durationMS: 60_000)
        let started = try await store.recordFanOutSteps(created.map {
            FanOutStep(messageID: $0.id, applicationID: app.id, targetedIncrement: 1, startsSending: true, lease: $0.id == created[1].id ? theirs : mine)
        })
        XCTAssertEqual(started.count, 3)
        do {
            _ = try await store.recordFanOutSteps(created.map {
                FanOutStep(messageID: $0.id, applicationID: app.id, targetedIncrement: 1, finish: true, lease: mine)
            })
            XCTFail("a lost lease was not reported")
        } catch {
            guard case .leaseLost = error else { return XCTFail("\(error)") }
        }
        for message in created {
            let stored = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stored.targeted, 1, "the failed list wrote message \(message.id)")
        }
    }
}
