import CSQLite
import Foundation
import XCTest
@testable import PushwireSQLiteStore
import PushwireStore

final class MessageStoreTests: XCTestCase {
    func newMessage(_ appID: Int64, code: String, transaction: String = "", targeting: TargetingRecord = TargetingRecord()) -> NewMessageRecord {
        NewMessageRecord(applicationID: appID, code: code, transactionID: transaction, sendAtMS: 0, categoryID: 0,
                         targeting: targeting, spec: "{}")
    }

    /// The ids still with the gateway must be one earlier step's: consecutive and distinct. A
    /// repeated id whose list still spans as many ids as it holds is refused as well as a gap.
    func testStillWithGatewayMustBeConsecutiveDistinctIDs() {
        func accepts(_ ids: [UInt64]) -> Bool {
            (try? SQLiteStore.checkStillWithGateway(FanOutStep(messageID: 1, applicationID: 1, stillWithGateway: ids))) != nil
        }
        XCTAssertTrue(accepts([]))
        XCTAssertTrue(accepts([5, 6, 7]))
        XCTAssertTrue(accepts([7, 5, 6]))
        XCTAssertFalse(accepts([5, 5, 7]), "a repeated id")
        XCTAssertFalse(accepts([5, 7]), "a gap")
        XCTAssertFalse(accepts([6, 6]))
    }

    /// A database written before migration 3 (the due index over every message) opens, and its
    /// outbox is read as before: the scheduled, due message and the one left sending are found,
    /// the done and cancelled ones are not, and the next send time is the future one's.
    func testOutboxOfASchemaTwoDatabaseAfterTheUpgrade() async throws {
        let directory = temporaryDataDirectory()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(directory + "/" + SQLiteStore.fileName, &db), SQLITE_OK)
        for migration in Schema.migrations[0..<2] { XCTAssertEqual(sqlite3_exec(db, migration, nil, nil, nil), SQLITE_OK) }
        let rows = """
            PRAGMA user_version = 2;
            INSERT INTO messages (id, app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, created_at) VALUES
                (1, 1, 'DUE', '', 1, 1000, 0, '{}', '{}', 0), (2, 1, 'LATER', '', 1, 9000000000000, 0, '{}', '{}', 0),
                (3, 1, 'SENDING', '', 2, 500, 0, '{}', '{}', 0), (4, 1, 'DONE', '', 3, 10, 0, '{}', '{}', 0),
                (5, 1, 'CANCELLED', '', 4, 10, 0, '{}', '{}', 0);
            """
        XCTAssertEqual(sqlite3_exec(db, rows, nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)

        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        await asyncAssertEqual(try await store.dueMessageIDs(nowMS: 2000, limit: 10, includeSending: true), [3, 1])
        await asyncAssertEqual(try await store.dueMessageIDs(nowMS: 2000, limit: 10, includeSending: false), [1])
        await asyncAssertEqual(try await store.nextScheduledSendTime(after: 2000), 9_000_000_000_000)
        await asyncAssertEqual(try await store.nextScheduledSendTime(after: 0), 1000)
    }

    func testKeysetPaginationSkipsUnregisteredAndDeadDevices() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "MSG01-00001"), initialCategories: [])
        for i in 0..<25 { try await store.upsertDevice(sampleDevice(app.id, String(format: "d%02d", i), token: String(format: "%04x", i)), tags: []) }
        _ = try await store.unregisterDevice(applicationID: app.id, hwid: "d03")
        var seen: [String] = []
        var cursor: String?
        while true {
            let page = try await store.targets(applicationID: app.id, TargetingRecord(), afterHWID: cursor, limit: 7)
            if page.isEmpty { break }
            XCTAssertLessThanOrEqual(page.count, 7)
            seen += page.map(\.hwid)
            cursor = page.last?.hwid
        }
        XCTAssertEqual(seen.count, 24)
        XCTAssertFalse(seen.contains("d03"))
        XCTAssertEqual(seen, seen.sorted())

        // A dead token is skipped until the device registers another one.
        let message = try await store.createMessages([newMessage(app.id, code: "M1")])[0]
        let ids = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id,
                                                             handOver: [NewDeliveryRecord(hwid: "d05", attempt: 1)]))
        _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
            DeliveryResultRecord(deliveryID: ids[0], hwid: "d05", result: .failed(reason: "Unregistered", invalidToken: true, refusedToken: RefusedToken(token: "0005", state: .dead, sinceMS: 1_754_000_000_000))),
        ]))
        await asyncAssertNil(try await store.targets(applicationID: app.id, TargetingRecord(hwids: ["d05"]), afterHWID: nil, limit: 10).first)
        try await store.upsertDevice(sampleDevice(app.id, "d05", token: "beef"), tags: [])
        await asyncAssertEqual(try await store.targets(applicationID: app.id, TargetingRecord(hwids: ["d05"]), afterHWID: nil, limit: 10).map(\.pushToken), ["beef"])
        let stats = try await store.statistics(messageID: message.id)
        XCTAssertEqual([stats.failed, stats.invalidTokens], [1, 1])
        XCTAssertEqual(stats.failures.map(\.reason), ["Unregistered"])
    }

    /// A targeting that only names devices is read one key at a time (`namedTargets`): it
    /// must select what the general query selects, in SQLite's (UTF-8 byte) order.
    func testNamedDevicesAreSelectedInByteOrderOnceEachAfterTheCursor() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "MSG01-00002"), initialCategories: [])
        let precomposed = "\u{E9}", decomposed = "e\u{301}"  // equal as Swift Strings, two hwids to SQLite
        for (i, hwid) in ["d02", "d03", "d05", "d07", precomposed, decomposed, "z"].enumerated() {
            try await store.upsertDevice(sampleDevice(app.id, hwid, token: String(format: "%04x", i + 1)), tags: [])
        }
        _ = try await store.unregisterDevice(applicationID: app.id, hwid: "d03")
        func named(_ hwids: [String], after: String? = nil, limit: Int = 10) async throws -> [[UInt8]] {
            try await store.targets(applicationID: app.id, TargetingRecord(hwids: hwids), afterHWID: after, limit: limit)
                .map { Array($0.hwid.utf8) }
        }
        let bytes = { (hwids: [String]) in hwids.map { Array($0.utf8) } }
        // Unknown and unregistered devices left out, a device named twice selected once.
        await asyncAssertEqual(try await named(["d07", "d02", "d02", "nobody", "d03", "d05"]), bytes(["d02", "d05", "d07"]))
        await asyncAssertEqual(try await named(["d07", "d02", "d05"], after: "d02"), bytes(["d05", "d07"]))
        await asyncAssertEqual(try await named(["d07", "d02", "d05"], limit: 2), bytes(["d02", "d05"]))
        // Byte order ("e" < "z" < 0xC3), and canonically equal hwids are still two devices.
        await asyncAssertEqual(try await named([precomposed, "z", decomposed]), bytes([decomposed, "z", precomposed]))
        await asyncAssertEqual(try await named([precomposed, "z", decomposed], after: "z"), bytes([precomposed]))
        // The general query (every device) agrees on the order.
        await asyncAssertEqual(try await store.targets(applicationID: app.id, TargetingRecord(), afterHWID: "d07", limit: 10).map { Array($0.hwid.utf8) },
                       bytes([decomposed, "z", precomposed]))
    }

    /// The first targets of several messages read together: each message gets its own named
    /// devices, also when consecutive messages name the same ones (read once) or ones that are
    /// canonically equal but other bytes (two devices, each read).
    func testFirstTargetsOfMessagesNamingTheSameOrCanonicallyEqualDevices() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "MSG01-00005"), initialCategories: [])
        let precomposed = "\u{E9}", decomposed = "e\u{301}"
        for (i, hwid) in ["a", "b", precomposed, decomposed].enumerated() {
            try await store.upsertDevice(sampleDevice(app.id, hwid, token: String(format: "%04x", i + 1)), tags: [])
        }
        let lists = [["a", "b"], ["a", "b"], [precomposed], [decomposed], [decomposed], ["a", "b"]]
        let created = try await store.createMessages(lists.enumerated().map { index, hwids in
            newMessage(app.id, code: "T\(index)", targeting: TargetingRecord(hwids: hwids))
        })
        let targets = try await store.firstTargets(of: created, limit: 100)
        XCTAssertEqual(targets.map { $0.map { Array($0.hwid.utf8) } }, lists.map { $0.map { Array($0.utf8) } })
        XCTAssertEqual(targets[3].map(\.pushToken), ["0004"], "the decomposed hwid's own device")
    }

    /// Several first steps in one writer job: ids are chosen by the store and run on from the
    /// largest, a cancelled message writes nothing (and uses no ids), the message row gets its
    /// status, counters and open range from one update.
    func testFirstStepsOfSeveralMessagesInOneJob() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "MSG01-00003"), initialCategories: [])
        let created = try await store.createMessages([newMessage(app.id, code: "A"), newMessage(app.id, code: "B"),
                                                      newMessage(app.id, code: "C")])
        // Records that exist already: the next ids follow them.
        let earlier = try await store.recordFanOutStep(FanOutStep(messageID: created[2].id, applicationID: app.id,
                                                                  handOver: [NewDeliveryRecord(hwid: "x", attempt: 1)]))
        let before = try await store.cancelMessage(applicationID: app.id, code: "B")
        XCTAssertEqual(before, .scheduled)
        let records = (1...3).map { NewDeliveryRecord(hwid: "h\($0)", attempt: 1) }
        let ids = try await store.recordFanOutSteps(created.prefix(2).map { message in
            FanOutStep(messageID: message.id, applicationID: app.id, handOver: records, cursor: "h3", targetedIncrement: 3,
                       startsSending: true)
        } + [FanOutStep(messageID: created[0].id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "h4", attempt: 1)],
                        stillWithGateway: [earlier[0] + 1, earlier[0] + 2, earlier[0] + 3])])
        XCTAssertEqual(ids[0], [earlier[0] + 1, earlier[0] + 2, earlier[0] + 3])
        XCTAssertEqual(ids[1], [], "a cancelled message hands nothing over")
        XCTAssertEqual(ids[2], [earlier[0] + 4])
        await asyncAssertEqual(try await store.message(id: created[0].id)?.status, .sending)
        await asyncAssertEqual(try await store.message(id: created[1].id)?.status, .cancelled)
        await asyncAssertEqual(try await store.statistics(messageID: created[1].id).targeted, 0)
        // All four of A's records are open (handed over, no outcome): a crash closes them.
        await asyncAssertEqual(try await store.openDeliveries(messageID: created[0].id).map(\.hwid), ["h1", "h2", "h3", "h4"])
        _ = try await store.recordFanOutStep(FanOutStep(messageID: created[0].id, applicationID: app.id, results: (ids[0] + ids[2]).map {
            DeliveryResultRecord(deliveryID: $0, hwid: "", result: .sent)
        }, finish: true))
        await asyncAssertEqual(try await store.message(id: created[0].id)?.status, .done)
        await asyncAssertEqual([try await store.statistics(messageID: created[0].id).targeted, try await store.statistics(messageID: created[0].id).sent], [3, 4])
        await asyncAssertEqual(try await store.openDeliveries(messageID: created[0].id).count, 0)
    }

    /// Last steps of several messages in one job, some only recording sent devices (written
    /// together, two different counts), one with a failure: each message ends as if its step
    /// had been written alone.
    func testLastStepsOfSeveralMessagesInOneJob() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "MSG01-00004"), initialCategories: [])
        let created = try await store.createMessages((0..<4).map { newMessage(app.id, code: "L\($0)") })
        let counts = [3, 3, 2, 3]
        let first = try await store.recordFanOutSteps(zip(created.prefix(4), counts).map { message, count in
            FanOutStep(messageID: message.id, applicationID: app.id, handOver: (1...count).map { NewDeliveryRecord(hwid: "h\($0)", attempt: 1) },
                       cursor: "h\(count)", targetedIncrement: count, startsSending: true)
        })
        func sent(_ ids: [UInt64]) -> [DeliveryResultRecord] { ids.map { DeliveryResultRecord(deliveryID: $0, hwid: "", result: .sent) } }
        var failing = sent(first[3])
        failing[1].result = .failed(reason: "BadDeviceToken", invalidToken: true, refusedToken: nil)
        let last = try await store.recordFanOutSteps([
            FanOutStep(messageID: created[0].id, applicationID: app.id, results: sent(first[0]), finish: true),
            FanOutStep(messageID: created[1].id, applicationID: app.id, results: sent(first[1]), finish: true),
            FanOutStep(messageID: created[2].id, applicationID: app.id, results: sent(first[2]), finish: true),
            FanOutStep(messageID: created[3].id, applicationID: app.id, results: failing, finish: true),
        ])
        XCTAssertEqual(last, [[], [], [], []])
        for (index, expected) in [(3, 0), (3, 0), (2, 0), (2, 1)].enumerated() {
            let stats = try await store.statistics(messageID: created[index].id)
            await asyncAssertEqual(try await store.message(id: created[index].id)?.status, .done, "message \(index)")
            XCTAssertEqual([stats.targeted, stats.sent, stats.failed, stats.invalidTokens],
                           [UInt64(counts[index]), UInt64(expected.0), UInt64(expected.1), UInt64(expected.1)], "message \(index)")
            await asyncAssertEqual(try await store.openDeliveries(messageID: created[index].id).count, 0, "message \(index)")
        }
        await asyncAssertEqual(try await store.statistics(messageID: created[3].id).failures.map(\.reason), ["BadDeviceToken"])
    }

    func testTransactionIDsAndOutboxStates() async throws {
        let directory = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: directory)
        let app = try await store.createApplication(sampleApplication(code: "MSG01-00002"), initialCategories: [])
        let first = try await store.createMessages([newMessage(app.id, code: "A", transaction: "t"), newMessage(app.id, code: "B", transaction: "t")])
        XCTAssertEqual(first.map(\.code), ["A", "A"], "the same transaction id in one request is one message")
        let again = try await store.createMessages([newMessage(app.id, code: "C", transaction: "t")])
        XCTAssertEqual(again.map(\.code), ["A"])
        await asyncAssertEqual(try await store.dueMessages(nowMS: 1, limit: 10).map(\.code), ["A"])
        let started = try await store.startSending(messageID: first[0].id, lease: nil)
        XCTAssertTrue(started)
        let ids = try await store.recordFanOutStep(FanOutStep(messageID: first[0].id, applicationID: app.id,
                                                             handOver: (0..<5).map { NewDeliveryRecord(hwid: "h\($0)", attempt: 1) },
                                                             cursor: "h4", targetedIncrement: 5))
        XCTAssertEqual(ids.count, 5)
        store.close()

        // After a restart the message is still due (sending), with its cursor and open records.
        let reopened = try SQLiteStore(dataDirectory: directory)
        defer { reopened.close() }
        let due = try await reopened.dueMessages(nowMS: 1, limit: 10)
        XCTAssertEqual(due.map(\.status), [.sending])
        XCTAssertEqual(due.first?.cursor, "h4")
        await asyncAssertEqual(try await reopened.openDeliveries(messageID: first[0].id).count, 5)
        let cancelled = try await reopened.cancelMessage(applicationID: app.id, code: "A")
        XCTAssertEqual(cancelled, .sending)
        _ = try await reopened.recordFanOutStep(FanOutStep(messageID: first[0].id, applicationID: app.id, results: [
            DeliveryResultRecord(deliveryID: ids[0], hwid: "h0", result: .sent),
            DeliveryResultRecord(deliveryID: ids[1], hwid: "h1", result: .sent),
            DeliveryResultRecord(deliveryID: ids[2], hwid: "h2", result: .retryPending(reason: "Busy")),
            DeliveryResultRecord(deliveryID: ids[3], hwid: "h3", result: .sent),
            DeliveryResultRecord(deliveryID: ids[4], hwid: "h4", result: .failed(reason: "BadDeviceToken", invalidToken: true, refusedToken: nil)),
        ], finish: true))
        await asyncAssertEqual(try await reopened.openDeliveries(messageID: first[0].id).map(\.hwid), ["h2"])
        let stats = try await reopened.statistics(messageID: first[0].id)
        XCTAssertEqual([stats.targeted, stats.sent, stats.failed, stats.invalidTokens], [5, 3, 1, 1])
        await asyncAssertEqual(try await reopened.message(id: first[0].id)?.status, .done)
        await asyncAssertTrue(try await reopened.dueMessages(nowMS: Int64.max, limit: 10).isEmpty)
    }

    /// Targetings with every kind of selector and awkward strings, as the store keeps them.
    static let awkwardTargetings: [TargetingRecord] = [
        TargetingRecord(),
        TargetingRecord(hwids: ["a", "quote\"d", "back\\slash", "tab\tnew\nline\u{1}", "ümlaut-😀", "slash/"]),
        TargetingRecord(userIDs: ["u1", ""], platforms: [1, 3, -2]),
        TargetingRecord(hwids: ["h"], userIDs: ["u"], platforms: [1], conditions: [
            TagConditionRecord(tag: "city", op: .eq, values: [.string("Zürich \"old\"")]),
            TagConditionRecord(tag: "level", op: .between, values: [.int(-5), .int(Int64.max)]),
            TagConditionRecord(tag: "vip", op: .in, values: [.bool(true), .bool(false), .string("x")]),
            TagConditionRecord(tag: "seen", op: .gte, values: [.int(1_700_000_000)]),
        ]),
    ]

    func testTargetingRoundTripsThroughTheStore() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "MSG01-00003"), initialCategories: [])
        let created = try await store.createMessages(Self.awkwardTargetings.enumerated().map { index, targeting in
            newMessage(app.id, code: "T\(index)", targeting: targeting)
        })
        for (index, targeting) in Self.awkwardTargetings.enumerated() {
            await asyncAssertEqual(try await store.message(applicationID: app.id, code: "T\(index)")?.targeting, targeting)
            await asyncAssertEqual(try await store.message(id: created[index].id)?.targeting, targeting)
        }
        await asyncAssertEqual(try await store.dueMessages(nowMS: 1, limit: 10).map(\.targeting), Self.awkwardTargetings)
    }

    func testTargetingTextReadsBothWays() async throws {
        for targeting in Self.awkwardTargetings {
            // Text older binaries stored (JSONEncoder) reads; this encoding reads with JSONDecoder.
            let old = String(decoding: try JSONEncoder().encode(targeting), as: UTF8.self)
            XCTAssertEqual(TargetingJSON.decode(old), targeting, old)
            let new = TargetingJSON.encode(targeting)
            XCTAssertEqual(try JSONDecoder().decode(TargetingRecord.self, from: Data(new.utf8)), targeting, new)
            XCTAssertEqual(TargetingJSON.decode(new), targeting, new)
        }
        XCTAssertNil(TargetingJSON.decode(#"{"conditions":[],"hwids":["a"#))
        XCTAssertNil(TargetingJSON.decode("not json"))
    }
}
