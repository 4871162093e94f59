import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import Synchronization
import XCTest

/// The change feed on PostgreSQL: two store objects on one database stand for two servers; what
/// one commits reaches the other's observer (and never its own), in commit order; new and
/// unchanged devices send nothing; a failed write sends nothing; a listening connection killed
/// with `pg_terminate_backend` comes back and reports `.everything`.
final class PostgresChangeFeedTests: XCTestCase {
    /// The changes an observer received, in order.
    final class Received: Sendable {
        private let changes = Mutex<[StoreChange]>([])

        init() {}

        /// Receives what `store`'s observer is told from now on.
        convenience init(observing store: PostgresStore) {
            self.init()
            store.observeChanges { [self] in append($0) }
        }

        func append(_ change: StoreChange) { changes.withLock { $0.append(change) } }

        var all: [StoreChange] { changes.withLock { $0 } }

        /// Waits up to `timeout` seconds for `count` changes in all.
        func wait(count: Int, timeout: TimeInterval = 10) async -> [StoreChange] {
            _ = await eventually(timeout: timeout) { self.all.count >= count }
            return all
        }
    }

    /// Two stores on one fresh database, standing for two servers, and the database's URL; the
    /// caller closes them.
    private func twoServers() throws -> (url: String, a: PostgresStore, b: PostgresStore) {
        let url = try freshDatabaseURL()
        return (url, try PostgresStore(url: url, readers: 1), try PostgresStore(url: url, readers: 1))
    }

    private func application(_ code: String) -> ApplicationRecord {
        ApplicationRecord(id: 0, code: code, name: "App \(code)", accessTokenHash: [1, 2, 3], apns: nil, categoriesVersion: 0,
                          createdAt: 1_700_000_000)
    }

    private static func device(_ applicationID: Int64, _ hwid: String, token: String = "tok") -> DeviceRecord {
        DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: 1, language: "en", timezone: 0,
                     userID: "", appVersion: "1.0")
    }

    private func category(_ name: String) -> CategoryRecord {
        CategoryRecord(id: 0, name: name, buttons: [ButtonRecord(id: 0, label: "OK")])
    }

    private static func register(_ store: PostgresStore, _ device: DeviceRecord) async throws {
        let error: StoreError? = await withCheckedContinuation { continuation in
            store.upsertDevice(device) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    /// Every kind of change made through B reaches A's observer, in commit order, and none of
    /// them reaches B's own.
    func testChangesThroughOneStoreReachTheOther() async throws {
        let (_, a, b) = try twoServers()
        defer { a.close(); b.close() }
        let seenByA = Received(observing: a), seenByB = Received(observing: b)

        let app = try await b.createApplication(application("FEED0-00001"), initialCategories: [category("YesNo")])
        var expected: [StoreChange] = [.application(id: app.id)]
        let (_, version) = try await b.upsertCategory(applicationID: app.id, category("Rate"))
        expected.append(.categories(applicationID: app.id, version: version))
        // New devices and unchanged ones send nothing: nobody can hold anything about them.
        let odd = "a b\u{00E9}\u{1F600}"  // a space, an accent, an emoji: hwids go in hex
        try await Self.register(b, Self.device(app.id, odd))
        try await Self.register(b, Self.device(app.id, "plain"))
        try await Self.register(b, Self.device(app.id, odd))
        try await b.upsertDevice(Self.device(app.id, "tagged"), tags: [.set("tier", .int(1))])
        // Existing devices that change do.
        try await Self.register(b, Self.device(app.id, odd, token: "other"))
        expected.append(.devices(applicationID: app.id, hwids: [odd]))
        try await b.upsertDevice(Self.device(app.id, "tagged"), tags: [.set("tier", .int(2))])
        expected.append(.devices(applicationID: app.id, hwids: ["tagged"]))
        _ = try await b.updateTags(applicationID: app.id, hwid: "plain", [.set("vip", .bool(true))])
        expected.append(.devices(applicationID: app.id, hwids: ["plain"]))
        let found = try await b.unregisterDevice(applicationID: app.id, hwid: "plain")
        XCTAssertTrue(found)
        expected.append(.devices(applicationID: app.id, hwids: ["plain"]))
        let nobody = try await b.unregisterDevice(applicationID: app.id, hwid: "nobody")
        XCTAssertFalse(nobody, "no device: nothing to tell")
        let deleted = try await b.deleteCategory(applicationID: app.id, categoryID: try await b.categories(applicationID: app.id).categories[0].id)
        expected.append(.categories(applicationID: app.id, version: deleted))
        _ = try await b.updateApplication(code: app.code, ApplicationUpdate(accessTokenHash: [9, 9]))
        expected.append(.application(id: app.id))

        let received = await seenByA.wait(count: expected.count)
        XCTAssertEqual(received, expected)
        // Nothing more: one last change, delivered in commit order, comes right after them.
        _ = try await b.updateApplication(code: app.code, ApplicationUpdate(name: "last"))
        _ = await seenByA.wait(count: expected.count + 1)
        XCTAssertEqual(seenByA.all, expected + [.application(id: app.id)], "nothing more: \(seenByA.all)")
        XCTAssertEqual(seenByB.all, [], "a store is not told of its own changes")
    }

    /// The observer may ask the listener about itself while it is told of a change: it used to
    /// run under the listener's own (non-recursive) lock, so this deadlocked the listener's
    /// thread and no change was delivered again.
    func testObserverMayAskTheListenerWhileBeingTold() async throws {
        let url = try freshDatabaseURL()
        let a = try PostgresStore(url: url, readers: 1)
        let b = try PostgresStore(url: url, readers: 1)
        defer { a.close(); b.close() }
        let seen = Received()
        let listener = a.listener
        a.observeChanges { change in
            XCTAssertNotEqual(listener.backendPID, 0)
            _ = listener.reconnects
            seen.append(change)
        }
        let app = try await b.createApplication(application("FEED0-00009"), initialCategories: [])
        let (_, version) = try await b.upsertCategory(applicationID: app.id, category("Rate"))
        let received = await seen.wait(count: 2)
        XCTAssertEqual(received, [.application(id: app.id), .categories(applicationID: app.id, version: version)])
    }

    /// A batch of registrations that changes many existing devices (the group upsert) reports
    /// every one of them, in notifications that fit PostgreSQL's payload limit.
    func testManyChangedDevicesAreReportedInChunks() async throws {
        let (_, a, b) = try twoServers()
        defer { a.close(); b.close() }
        let seen = Received(observing: a)
        let app = try await b.createApplication(application("FEED0-00002"), initialCategories: [])
        let hwids = (0..<200).map { String(repeating: "h", count: 120) + String(format: "%05d", $0) }  // 125 bytes each
        try await withThrowingTaskGroup(of: Void.self) { group in
            for hwid in hwids { group.addTask { try await Self.register(b, Self.device(app.id, hwid)) } }
            try await group.waitForAll()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for hwid in hwids { group.addTask { try await Self.register(b, Self.device(app.id, hwid, token: "new")) } }
            try await group.waitForAll()
        }
        _ = await eventually {
            Set(seen.all.flatMap { change -> [String] in
                if case .devices(_, let hwids) = change { return hwids }
                return []
            }).count == hwids.count
        }
        var reported: [String] = []
        for change in seen.all {
            switch change {
            case .application: continue
            case .devices(let applicationID, let some):
                XCTAssertEqual(applicationID, app.id)
                XCTAssertLessThanOrEqual(some.count, PGChangeFeed.devicesPerNotification)
                reported += some
            default: XCTFail("unexpected \(change)")
            }
        }
        XCTAssertEqual(Set(reported), Set(hwids), "every changed device reported")
    }

    /// A write that fails (a category name taken) is rolled back with its notification: nothing
    /// reaches the other store.
    func testAFailedWriteSendsNothing() async throws {
        let (_, a, b) = try twoServers()
        defer { a.close(); b.close() }
        let seen = Received(observing: a)
        let app = try await b.createApplication(application("FEED0-00003"), initialCategories: [category("YesNo")])
        _ = await seen.wait(count: 1)
        do {
            _ = try await b.upsertCategory(applicationID: app.id, category("YesNo"))
            XCTFail("a taken name was accepted")
        } catch {}
        // Nothing for the failed write: the next change, delivered in commit order, is the
        // second notification.
        _ = try await b.updateApplication(code: app.code, ApplicationUpdate(name: "next"))
        _ = await seen.wait(count: 2)
        XCTAssertEqual(seen.all, [.application(id: app.id), .application(id: app.id)])
    }

    /// Changes committed before the observer was set are handed to it when it is.
    func testChangesBeforeTheObserverAreKept() async throws {
        let (_, a, b) = try twoServers()
        defer { a.close(); b.close() }
        let app = try await b.createApplication(application("FEED0-00004"), initialCategories: [])
        let arrived = await eventually { a.listener.pendingCount == 1 }
        XCTAssertTrue(arrived, "the change never reached A's listener")
        let seen = Received(observing: a)
        let received = await seen.wait(count: 1)
        XCTAssertEqual(received, [.application(id: app.id)])
    }

    /// The listening connection killed by the database (`pg_terminate_backend`): the listener
    /// connects again by itself, reports `.everything` (what committed meanwhile was not
    /// delivered), and what commits after is delivered again.
    func testAKilledListenerReconnectsAndReportsEverything() async throws {
        let (url, a, b) = try twoServers()
        defer { a.close(); b.close() }
        let seen = Received(observing: a)
        let killed = a.listener.backendPID
        XCTAssertNotEqual(killed, 0)
        let admin = try PGConnection(url: url, connectTimeout: 5)
        let terminated = try admin.query("SELECT pg_terminate_backend($1)", [String(killed)])
        XCTAssertEqual(terminated.text(0, 0), "t")
        // Committed while A's listener is away (or about to notice).
        let app = try await b.createApplication(application("FEED0-00005"), initialCategories: [])
        let refreshed = await eventually { seen.all.contains(.everything) }
        XCTAssertTrue(refreshed, "no .everything after the reconnect: \(seen.all)")
        XCTAssertEqual(a.listener.reconnects, 1)
        XCTAssertNotEqual(a.listener.backendPID, killed)
        let (_, version) = try await b.upsertCategory(applicationID: app.id, category("After"))
        let delivered = await eventually { seen.all.contains(.categories(applicationID: app.id, version: version)) }
        XCTAssertTrue(delivered, "a change after the reconnect was not delivered: \(seen.all)")
    }

    /// Payloads: every hwid (any bytes but NUL) comes back as it went; other programs' payloads
    /// on the channel are ignored; the biggest chunk stays under PostgreSQL's 8000 bytes.
    func testPayloadsRoundTrip() {
        let hwids = ["plain", "with space", "é", "\u{1F600}", String(repeating: "x", count: 128)]
        let payload = PGChangeFeed.devices(origin: "0123456789abcdef", applicationID: 42, hwids: hwids)
        let decoded = PGChangeFeed.decode(payload)
        XCTAssertEqual(decoded?.origin, "0123456789abcdef")
        XCTAssertEqual(decoded?.change, .devices(applicationID: 42, hwids: hwids))
        XCTAssertEqual(PGChangeFeed.decode(PGChangeFeed.categories(origin: "o", applicationID: 7, version: 9))?.change,
                       .categories(applicationID: 7, version: 9))
        XCTAssertEqual(PGChangeFeed.decode(PGChangeFeed.application(origin: "o", id: 3))?.change, .application(id: 3))
        for foreign in ["", "hello", "o x 1", "o c 1", "o d 1 zz", "o a notanumber", "o d 1 c3"] {
            XCTAssertNil(PGChangeFeed.decode(foreign), foreign)
        }
        let biggest = PGChangeFeed.devices(origin: PGChangeFeed.newOrigin(), applicationID: Int64.max,
                                           hwids: Array(repeating: String(repeating: "\u{10FFFF}", count: 32), count: PGChangeFeed.devicesPerNotification))
        XCTAssertLessThan(biggest.utf8.count, 8000)
    }
}
