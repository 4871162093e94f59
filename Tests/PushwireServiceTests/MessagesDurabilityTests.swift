import Foundation
import PushwireDelivery
import PushwireSQLiteStore
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// A message store whose `recordFanOutStep` never returns from its `hangAt`-th call: the process
/// "dies" there (nothing of that step is written), as with `kill -9`.
final class CrashingStore: MessageStore, @unchecked Sendable {
    // @unchecked: the counter is guarded by the lock; everything else forwards to a Sendable store.
    let store: SQLiteStore
    let hangAt: Int
    private let lock = NSLock()
    private var calls = 0

    init(_ store: SQLiteStore, hangAt: Int) {
        self.store = store
        self.hangAt = hangAt
    }

    func recordFanOutStep(_ step: FanOutStep) async throws(StoreError) -> [UInt64] {
        let call = lock.withLock { calls += 1; return calls }
        if call >= hangAt {
            try? await Task.sleep(for: .seconds(3600))
            throw .closed
        }
        return try await store.recordFanOutStep(step)
    }

    // Every other requirement forwards to the real store, with its promise.
    func createMessages(_ m: [NewMessageRecord]) async throws(StoreError) -> [MessageRecord] { try await store.createMessages(m) }
    func createMessages(_ m: [NewMessageRecord], completion: @escaping @Sendable (Result<[MessageRecord], StoreError>) -> Void) {
        store.createMessages(m, completion: completion)
    }
    func message(applicationID: Int64, code: String) async throws(StoreError) -> MessageRecord? { try await store.message(applicationID: applicationID, code: code) }
    func message(id: Int64) async throws(StoreError) -> MessageRecord? { try await store.message(id: id) }
    func messages(ids: [Int64]) async throws(StoreError) -> [Int64: MessageRecord] { try await store.messages(ids: ids) }
    func cancelMessage(applicationID: Int64, code: String) async throws(StoreError) -> MessageStatusRecord? { try await store.cancelMessage(applicationID: applicationID, code: code) }
    func listMessages(applicationID: Int64, beforeID: Int64?, limit: Int) async throws(StoreError) -> [MessageSummaryRecord] {
        try await store.listMessages(applicationID: applicationID, beforeID: beforeID, limit: limit)
    }
    func dueMessages(nowMS: Int64, limit: Int) async throws(StoreError) -> [MessageRecord] { try await store.dueMessages(nowMS: nowMS, limit: limit) }
    func dueMessageIDs(nowMS: Int64, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64] {
        try await store.dueMessageIDs(nowMS: nowMS, limit: limit, includeSending: includeSending)
    }
    func nextScheduledSendTime(after nowMS: Int64) async throws(StoreError) -> Int64? { try await store.nextScheduledSendTime(after: nowMS) }
    func startSending(messageID: Int64, lease: MessageLease?) async throws(StoreError) -> Bool {
        try await store.startSending(messageID: messageID, lease: lease)
    }
    func claimDueMessages(_ lease: MessageLease, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64] {
        try await store.claimDueMessages(lease, limit: limit, includeSending: includeSending)
    }
    func renewLeases(_ lease: MessageLease, messageIDs: [Int64]) async throws(StoreError) -> [Int64] {
        try await store.renewLeases(lease, messageIDs: messageIDs)
    }
    func releaseLeases(owner: String, messageIDs: [Int64]) async throws(StoreError) {
        try await store.releaseLeases(owner: owner, messageIDs: messageIDs)
    }
    var sharesFanOutBatches: Bool { store.sharesFanOutBatches }
    func batchBounds(applicationID: Int64, _ t: TargetingRecord, every: Int) async throws(StoreError) -> [String] {
        try await store.batchBounds(applicationID: applicationID, t, every: every)
    }
    func cutFanOut(messageID: Int64, lease: MessageLease, bounds: [String]) async throws(StoreError) -> Bool {
        try await store.cutFanOut(messageID: messageID, lease: lease, bounds: bounds)
    }
    func claimFanOutBatches(_ lease: MessageLease, limit: Int) async throws(StoreError) -> [FanOutBatchRecord] {
        try await store.claimFanOutBatches(lease, limit: limit)
    }
    func renewBatchLeases(_ lease: MessageLease, batches: [FanOutBatchID]) async throws(StoreError) -> [FanOutBatchID] {
        try await store.renewBatchLeases(lease, batches: batches)
    }
    func releaseBatchLeases(owner: String, batches: [FanOutBatchID]) async throws(StoreError) {
        try await store.releaseBatchLeases(owner: owner, batches: batches)
    }
    func openDeliveries(batch: FanOutBatchID) async throws(StoreError) -> [OpenDeliveryRecord] { try await store.openDeliveries(batch: batch) }
    func targets(applicationID: Int64, _ t: TargetingRecord, afterHWID: String?, limit: Int) async throws(StoreError) -> [TargetDevice] {
        try await store.targets(applicationID: applicationID, t, afterHWID: afterHWID, limit: limit)
    }
    func firstTargets(of messages: [MessageRecord], limit: Int) async throws(StoreError) -> [[TargetDevice]] {
        try await store.firstTargets(of: messages, limit: limit)
    }
    func target(applicationID: Int64, hwid: String) async throws(StoreError) -> TargetDevice? { try await store.target(applicationID: applicationID, hwid: hwid) }
    func tokenRefusal(applicationID: Int64, hwid: String) async throws(StoreError) -> RefusedToken? { try await store.tokenRefusal(applicationID: applicationID, hwid: hwid) }
    func knownDevices(applicationID: Int64, hwids: [String]) async throws(StoreError) -> [String] { try await store.knownDevices(applicationID: applicationID, hwids: hwids) }
    func tokenlessDevices(applicationID: Int64, hwids: [String]) async throws(StoreError) -> [String] { try await store.tokenlessDevices(applicationID: applicationID, hwids: hwids) }
    func tapsPerMinute(messageID: Int64, latest: Int) async throws(StoreError) -> [TapMinuteRecord] { try await store.tapsPerMinute(messageID: messageID, latest: latest) }
    func openDeliveries(messageID: Int64) async throws(StoreError) -> [OpenDeliveryRecord] { try await store.openDeliveries(messageID: messageID) }
    func recordFanOutSteps(_ steps: [FanOutStep]) async throws(StoreError) -> [[UInt64]] {
        // Counted as one call (one transaction) and forwarded whole: all or none.
        let call = lock.withLock { calls += 1; return calls }
        if call >= hangAt {
            try? await Task.sleep(for: .seconds(3600))
            throw .closed
        }
        return try await store.recordFanOutSteps(steps)
    }
    func recordAction(_ action: ActionRecord) async throws(StoreError) -> Bool { try await store.recordAction(action) }
    func statistics(messageID: Int64) async throws(StoreError) -> MessageStatisticsRecord { try await store.statistics(messageID: messageID) }
}

/// A gateway that never returns from its `hangAt`-th batch, having written nothing of it.
final class CrashingGateway: NotificationGateway, @unchecked Sendable {
    // @unchecked: the counter is guarded by the lock.
    let next: any NotificationGateway
    let hangAt: Int
    private let lock = NSLock()
    private var calls = 0

    /// How many batches it was handed so far (the hanging ones included).
    var callCount: Int { lock.withLock { calls } }

    init(next: any NotificationGateway, hangAt: Int) {
        self.next = next
        self.hangAt = hangAt
    }

    func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        let call = lock.withLock { calls += 1; return calls }
        if call >= hangAt {
            try? await Task.sleep(for: .seconds(3600))
            return []
        }
        return await next.deliver(batch)
    }
}

final class MessagesDurabilityTests: XCTestCase {
    /// Polls `condition` for up to `seconds`.
    func eventually(_ seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    func registerTen(_ h: MessagesHarness) async throws -> (code: String, token: String, hwids: [String]) {
        let app = try await h.base.createApplication()
        let hwids = (0..<10).map { "dev-\($0)" }
        for hwid in hwids { try await h.register(app.code, hwid) }
        return (app.code, app.token, hwids)
    }

    /// The process dies after batches 1 and 2 went to the sink but before their outcomes were
    /// recorded: after the restart every target is in the sink exactly once.
    func testCrashBeforeOutcomesAreRecordedDeliversEveryTargetOnce() async throws {
        let first = try await MessagesHarness(store: { CrashingStore($0, hangAt: 3) })
        let app = try await registerTen(first)
        let code = try await first.create(note("crash"), token: app.token).messageCodes[0]
        let abandoned = Task { await first.send() }
        await asyncAssertTrue(try await eventually { try first.sinkLines().count == 6 })
        _ = abandoned  // the "dead" process: never resumed

        let second = try await MessagesHarness(directory: first.base.directory)
        await second.send()
        let lines = try second.sinkLines()
        XCTAssertEqual(lines.count, 10)
        XCTAssertEqual(Set(lines.map(\.token)), Set(app.hwids.map(MessagesHarness.token(for:))), "every target delivered, none twice")
        let details = try await second.details(code, token: app.token)
        XCTAssertEqual(details.status, .done)
        XCTAssertEqual(details.targeted, 10)
        // A batch goes to the gateway as soon as its records commit, and its outcomes are recorded
        // with the step after next: batches 1 and 2 were handed over without a recorded outcome,
        // so they are closed as Interrupted, not resent.
        XCTAssertEqual(details.sent, 4)
        XCTAssertEqual(details.failures.map(\.reason), [FanOut.interruptedReason])
        XCTAssertEqual(details.failures.map(\.count), [6])
    }

    /// The process dies while the gateway holds batches 2 and 3 (a batch is handed over as soon as
    /// its records commit, while the previous one may still be there): those attempt records are
    /// never resent (at most once per attempt record); everything else is delivered once.
    func testCrashInsideTheGatewayNeverSendsTwice() async throws {
        let directory = NSTemporaryDirectory() + "pushwire-crash-gw-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sink = try FileSinkGateway(path: (directory as NSString).appendingPathComponent("sink.jsonl"))
        let gateway = CrashingGateway(next: sink, hangAt: 2)
        let first = try await MessagesHarness(directory: directory, gateway: gateway)
        let app = try await registerTen(first)
        let code = try await first.create(note("crash"), token: app.token).messageCodes[0]
        let abandoned = Task { await first.send() }
        await asyncAssertTrue(try await eventually { try first.sinkLines().count == 3 })
        // The step that hands batch 3 over records batch 1's outcomes; after it nothing more is written.
        await asyncAssertTrue(try await eventually { try await first.details(code, token: app.token).sent == 3 })
        // Batch 3 was handed over after that step committed; with batches 2 and 3 held, the
        // pipeline waits for the gateway and writes nothing more.
        await asyncAssertTrue(await eventually { gateway.callCount == 3 })
        _ = abandoned

        let second = try await MessagesHarness(directory: directory)
        await second.send()
        let tokens = try second.sinkLines().map(\.token)
        XCTAssertEqual(tokens.count, Set(tokens).count, "none twice")
        XCTAssertEqual(tokens.count, 4)
        let details = try await second.details(code, token: app.token)
        XCTAssertEqual([details.targeted, details.sent, details.failed], [10, 4, 6])
        XCTAssertEqual(details.failures.first?.reason, FanOut.interruptedReason)
    }

    func testScheduledMessageSurvivesRestartAndGoesOutOnTime() async throws {
        let first = try await MessagesHarness()
        let app = try await first.base.createApplication()
        try await first.register(app.code, "a")
        var n = note("later")
        n.sendAtMS = DeliveryPipeline.nowMS() + 1500
        let code = try await first.create(n, token: app.token).messageCodes[0]
        await asyncAssertEqual(try await first.details(code, token: app.token).status, .scheduled)
        await first.send()
        XCTAssertEqual(try first.sinkLines().count, 0, "not before its time")
        first.base.store.close()

        let second = try await MessagesHarness(directory: first.base.directory)
        second.pipeline.start()
        await asyncAssertTrue(try await eventually(10) { try second.sinkLines().count == 1 })
        XCTAssertGreaterThanOrEqual(DeliveryPipeline.nowMS(), n.sendAtMS)
        await second.pipeline.stop()
        await asyncAssertEqual(try await second.details(code, token: app.token).status, .done)
    }

    func testDeleteCancelsOnlyWhatHasNotStarted() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        try await h.register(app.code, "a")
        var later = note("later")
        later.sendAtMS = DeliveryPipeline.nowMS() + 300
        let scheduled = try await h.create(later, token: app.token).messageCodes[0]
        var delete = DeleteMessageRequest()
        delete.messageCode = scheduled
        _ = try await h.messages.deleteMessage(delete, caller: Caller(bearerToken: app.token))
        await asyncAssertEqual(try await h.details(scheduled, token: app.token).status, .cancelled)
        // Past its send time, a send pass would take it if it were still scheduled.
        await asyncAssertTrue(await eventually { DeliveryPipeline.nowMS() > later.sendAtMS })
        await h.send()
        XCTAssertEqual(try h.sinkLines().count, 0, "a cancelled message is not sent")

        let now = try await h.create(note("now"), token: app.token).messageCodes[0]
        await h.send()
        delete.messageCode = now
        await assertRPCError(.failedPrecondition, "already sent") { try await h.messages.deleteMessage(delete, caller: Caller(bearerToken: app.token)) }
        let other = try await h.base.createApplication("other")
        await assertRPCError(.notFound) { try await h.messages.deleteMessage(delete, caller: Caller(bearerToken: other.token)) }
    }
}
