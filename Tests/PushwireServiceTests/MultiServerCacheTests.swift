import Foundation
@testable import PushwirePostgresStore
import PushwireWire
import XCTest

/// Caches coherent across servers, with real `pushwired` processes on one PostgreSQL database
/// (`PushwiredCluster`): what one server commits, every other answers within the bound
/// docs/DEPLOYMENT.md states (1 s), also after its listening connection was killed; one
/// transaction id through two servers is one message; taps and details agree on every server.
final class MultiServerCacheTests: XCTestCase {
    /// The bound docs/DEPLOYMENT.md states for a change to reach another server's caches.
    static let bound: TimeInterval = 1

    private var callID: UInt32 = 1_000
    private func next() -> UInt32 {
        callID += 1
        return callID
    }

    /// Waits up to `timeout` for `condition`, asking every 5 ms; the time it took, or nil.
    private func within(_ timeout: TimeInterval, _ condition: () throws -> Bool) -> TimeInterval? {
        let start = Date()
        while true {
            if (try? condition()) == true { return Date().timeIntervalSince(start) }
            if Date().timeIntervalSince(start) > timeout { return nil }
            usleep(5_000)
        }
    }

    private func sync(_ code: String, known: UInt64, through client: RawClient) throws -> SyncCategoriesResponse {
        var request = SyncCategoriesRequest()
        request.application = code
        request.knownVersion = known
        return try client.call(Methods.Devices.syncCategories, request, callID: next())
    }

    private func register(_ code: String, _ hwid: String, token: String = String(repeating: "ab", count: 32), tags: [Tag] = [],
                          through client: RawClient) throws -> RegisterDeviceResponse {
        var request = registration(code, hwid, token: token)
        request.tags = tags
        return try client.call(Methods.Devices.registerDevice, request, callID: next())
    }

    private func upsert(_ category: Category, token: String, through client: RawClient) throws -> UpsertCategoryResponse {
        try client.call(Methods.Categories.upsertCategory, upsertRequest(category), token: token, callID: next())
    }

    /// TrackAction's request for a tap on button `buttonID` of category `categoryID`.
    private func buttonTap(_ code: String, _ hwid: String, message: String, categoryID: UInt32, buttonID: UInt32) -> TrackActionRequest {
        var tap = TrackActionRequest()
        tap.application = code
        tap.hwid = hwid
        tap.messageCode = message
        tap.kind = .button
        tap.categoryID = categoryID
        tap.buttonID = buttonID
        return tap
    }

    /// A connection to the cluster's database, to look at what is stored.
    private func database(_ cluster: PushwiredCluster) throws -> PGConnection {
        try PGConnection(url: cluster.databaseURL, connectTimeout: 5)
    }

    /// An application created through server 0, known to server 1 too (within the bound).
    private func sharedApplication(_ cluster: PushwiredCluster, _ a: RawClient, _ b: RawClient) throws -> (code: String, token: String) {
        let created = try CrashRecoveryTests.createApplication(named: "shared", through: a)
        let code = try XCTUnwrap(created.application?.code)
        let seen = within(Self.bound) { try sync(code, known: 0, through: b).version == 1 }
        XCTAssertNotNil(seen, "server B did not learn of an application created through A within \(Self.bound) s")
        return (code, created.accessToken)
    }

    /// An application created through A is known to B within the bound; a device registered
    /// through A syncs through B and is no unknown device there.
    func testRegisterThroughOneServerAndSyncThroughTheOther() throws {
        let cluster = try PushwiredCluster(count: 2)
        defer { cluster.stopAll() }
        let (a, b) = (try cluster.client(0), try cluster.client(1))
        let (code, token) = try sharedApplication(cluster, a, b)
        let registered = try register(code, "device-1", through: a)
        XCTAssertEqual(registered.categoriesVersion, 1)
        XCTAssertEqual(registered.iosCategories.map(\.name), ["YesNo"])
        let full = try sync(code, known: 0, through: b)
        XCTAssertEqual(full.categories.map(\.name), ["YesNo"])
        XCTAssertTrue(try sync(code, known: 1, through: b).notModified)
        var create = CreateMessageRequest()
        create.notifications = [note("hello", devices: ["device-1", "nobody"])]
        let response = try b.call(Methods.Messages.createMessage, create, token: token, callID: next())
        XCTAssertEqual(response.unknownDevices, ["nobody"], "B knows the device A registered")
    }

    /// A category created through B reaches A's cache (SyncCategories, ListCategories,
    /// RegisterDevice answered on A's loops) within the bound, and one deleted through A reaches
    /// B; an access token rotated through B stops working on A within the bound.
    func testCategoryAndTokenChangesThroughOneServerReachTheOtherWithinTheBound() throws {
        let cluster = try PushwiredCluster(count: 2)
        defer { cluster.stopAll() }
        let (a, b) = (try cluster.client(0), try cluster.client(1))
        let (code, token) = try sharedApplication(cluster, a, b)
        XCTAssertTrue(try sync(code, known: 1, through: a).notModified, "A has version 1 cached")

        let stored = try upsert(makeCategory("Rate", buttons: [makeButton(0, "Good"), makeButton(1, "Bad")]), token: token, through: b)
        XCTAssertEqual(stored.categoriesVersion, 2)
        let took = within(Self.bound) {
            let answer = try sync(code, known: 1, through: a)
            return !answer.notModified && answer.version == 2 && answer.categories.map(\.name) == ["YesNo", "Rate"]
        }
        XCTAssertNotNil(took, "a category created through B was not visible through A within \(Self.bound) s")
        let listed = try a.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: token, callID: next())
        XCTAssertEqual(listed.categoriesVersion, 2)
        XCTAssertEqual(listed.categories.map(\.name), ["YesNo", "Rate"])
        var known = registration(code, "device-1")
        known.knownCategoriesVersion = 1
        let answered = try a.call(Methods.Devices.registerDevice, known, callID: next())
        XCTAssertEqual(answered.categoriesVersion, 2)
        XCTAssertEqual(answered.iosCategories.map(\.name), ["YesNo", "Rate"])

        var delete = DeleteCategoryRequest()
        delete.categoryID = try XCTUnwrap(stored.category?.categoryID)
        XCTAssertEqual(try a.call(Methods.Categories.deleteCategory, delete, token: token, callID: next()).categoriesVersion, 3)
        XCTAssertNotNil(within(Self.bound) { try sync(code, known: 2, through: b).categories.map(\.name) == ["YesNo"] },
                        "a category deleted through A was still listed through B after \(Self.bound) s")

        var rotate = UpdateApplicationRequest()
        rotate.application = code
        rotate.rotateAccessToken = true
        let rotated = try b.call(Methods.Admin.updateApplication, rotate, token: "crash-admin", callID: next()).accessToken
        let refused = within(Self.bound) {
            do {
                _ = try a.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: token, callID: next())
                return false
            } catch let error as RPCError {
                return error.code == .unauthenticated
            }
        }
        XCTAssertNotNil(refused, "the old token still worked on A \(Self.bound) s after it was rotated through B")
        XCTAssertEqual(try a.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: rotated, callID: next()).categoriesVersion, 3)
    }

    /// A device re-tagged, unregistered or re-registered with another token through B is not
    /// answered "unchanged" by A from the fingerprint it kept: registering it through A again,
    /// as it was, writes it again.
    func testDeviceChangesThroughOneServerReachTheOthersFingerprints() throws {
        let cluster = try PushwiredCluster(count: 2)
        defer { cluster.stopAll() }
        let (a, b) = (try cluster.client(0), try cluster.client(1))
        let (code, _) = try sharedApplication(cluster, a, b)
        let gold = [makeTag("plan", .stringValue("gold"))]
        let tokenA = String(repeating: "aa", count: 32), tokenB = String(repeating: "bb", count: 32)
        for hwid in ["tagged", "unregistered", "moved"] {
            // Twice: the second is answered from A's fingerprint.
            for _ in 0..<2 { _ = try register(code, hwid, token: tokenA, tags: hwid == "tagged" ? gold : [], through: a) }
        }

        var setTags = SetTagsRequest()
        setTags.application = code
        setTags.hwid = "tagged"
        var update = TagUpdate()
        update.name = "plan"
        update.operation = .set(tagValue(.stringValue("silver")))
        setTags.updates = [update]
        _ = try b.call(Methods.Devices.setTags, setTags, callID: next())
        var unregister = UnregisterDeviceRequest()
        unregister.application = code
        unregister.hwid = "unregistered"
        _ = try b.call(Methods.Devices.unregisterDevice, unregister, callID: next())
        _ = try register(code, "moved", token: tokenB, through: b)

        let database = try database(cluster)
        func storedToken(_ hwid: String) throws -> String {
            try database.query("SELECT push_token FROM devices WHERE hwid = $1", [hwid]).text(0, 0)
        }
        func storedPlan() throws -> String {
            try database.query("SELECT text_value FROM device_tags WHERE hwid = 'tagged' AND name = 'plan'").text(0, 0)
        }
        XCTAssertEqual(try storedPlan(), "silver")
        XCTAssertEqual(try storedToken("unregistered"), "")
        XCTAssertEqual(try storedToken("moved"), tokenB)
        // The device registers through A again as it was; within the bound A must write it.
        let restored = within(Self.bound) {
            _ = try register(code, "tagged", token: tokenA, tags: gold, through: a)
            _ = try register(code, "unregistered", token: tokenA, through: a)
            _ = try register(code, "moved", token: tokenA, through: a)
            return try storedPlan() == "gold" && storedToken("unregistered") == tokenA && storedToken("moved") == tokenA
        }
        XCTAssertNotNil(restored, """
            A still answered from stale fingerprints \(Self.bound) s after the changes through B: plan \
            \((try? storedPlan()) ?? "?"), tokens \((try? storedToken("unregistered")) ?? "?") \((try? storedToken("moved")) ?? "?")
            """)
    }

    /// New connections to the cluster's database refused and server `index`'s listening
    /// connection killed (`pg_terminate_backend`), once every connection of both servers is open:
    /// a change committed meanwhile cannot reach that server until `allow` is called.
    private struct DeafServer {
        let admin: PGConnection
        let database: String

        /// Lets connections in again (the listener reconnects with backoff, up to 2 s).
        func allow() throws { try admin.execute("ALTER DATABASE \(database) ALLOW_CONNECTIONS true") }
    }

    private func deafen(_ index: Int, of cluster: PushwiredCluster) throws -> DeafServer {
        let pid = try XCTUnwrap(cluster.members[index].process?.processIdentifier)
        let name = try XCTUnwrap(cluster.databaseURL.split(separator: "/").last?.split(separator: "?").first.map(String.init))
        let admin = try PGConnection(url: try XCTUnwrap(ProcessInfo.processInfo.environment["PUSHWIRE_TEST_DATABASE_URL"]),
                                     connectTimeout: 5)
        // A writer and 4 readers each, besides the listeners (readers connect within 5 s of start).
        let connected = within(15) {
            try admin.query("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'pushwired'",
                            [name]).int(0, 0) >= 10
        }
        XCTAssertNotNil(connected, "the servers' connections did not all open")
        try admin.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
        let killed = try admin.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2
            """, [name, "pushwired-listener-\(pid)"])
        XCTAssertEqual(killed.count, 1, "the listening connection of server \(index) was not found")
        return DeafServer(admin: admin, database: name)
    }

    /// A change committed through B while A's listening connection is down (killed, and kept
    /// from reconnecting) is served by A once it reconnects: it reads everything again (a
    /// category, a rotated access token) within the bound after its reconnection (backoff ≤ 2 s).
    func testAChangeMissedWhileTheListenerWasDownIsSeenAfterItReconnects() throws {
        // C keeps listening: it shows when the change's notification has been delivered.
        let cluster = try PushwiredCluster(count: 3)
        defer { cluster.stopAll() }
        let (a, b, c) = (try cluster.client(0), try cluster.client(1), try cluster.client(2))
        let (code, token) = try sharedApplication(cluster, a, b)
        XCTAssertNotNil(within(Self.bound) { try sync(code, known: 0, through: c).version == 1 }, "C does not hold the application")
        let deaf = try deafen(0, of: cluster)
        defer { try? deaf.allow() }

        let stored = try upsert(makeCategory("Missed", buttons: [makeButton(0, "OK")]), token: token, through: b)
        XCTAssertEqual(stored.categoriesVersion, 2)
        var rotate = UpdateApplicationRequest()
        rotate.application = code
        rotate.rotateAccessToken = true
        let rotated = try b.call(Methods.Admin.updateApplication, rotate, token: "crash-admin", callID: next()).accessToken
        // C, which cached version 1 and listens, serves the change: its notification has gone out.
        XCTAssertNotNil(within(Self.bound) { try sync(code, known: 1, through: c).version == 2 }, "C did not hear of the change")
        XCTAssertTrue(try sync(code, known: 1, through: a).notModified, "A heard of the change without a listening connection")

        try deaf.allow()
        let seen = within(Self.bound + PGWorker.maximumBackoff) {
            let answer = try sync(code, known: 1, through: a)
            return answer.version == 2 && answer.categories.map(\.name) == ["YesNo", "Missed"]
        }
        XCTAssertNotNil(seen, "A did not serve the category missed while its listener was down after reconnecting")
        XCTAssertNotNil(within(Self.bound) {
            (try? a.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: rotated, callID: next())) != nil
        }, "A did not take the access token rotated while its listener was down")
    }

    /// A call naming a category another server created a moment ago, before this one heard of
    /// it, is not refused: CreateMessage and TrackAction read the store for a category their
    /// cache lacks. (A's listening connection is kept down so that it cannot have heard.)
    func testACategoryNotYetHeardOfIsReadFromTheStore() throws {
        let cluster = try PushwiredCluster(count: 2)
        defer { cluster.stopAll() }
        let (a, b) = (try cluster.client(0), try cluster.client(1))
        let (code, token) = try sharedApplication(cluster, a, b)
        _ = try register(code, "device-1", through: a)
        let deaf = try deafen(0, of: cluster)
        defer { try? deaf.allow() }

        let stored = try upsert(makeCategory("Fresh", buttons: [makeButton(0, "Go"), makeButton(1, "Stop")]), token: token, through: b)
        let categoryID = try XCTUnwrap(stored.category?.categoryID)
        var create = CreateMessageRequest()
        var notification = note("fresh", devices: ["device-1"])
        notification.iosCategoryID = categoryID
        create.notifications = [notification]
        let created = try a.call(Methods.Messages.createMessage, create, token: token, callID: next())
        let message = try XCTUnwrap(created.messageCodes.first)
        let tap = buttonTap(code, "device-1", message: message, categoryID: categoryID, buttonID: 1)
        XCTAssertTrue(try a.call(Methods.Devices.trackAction, tap, callID: next()).recorded)
        var details = GetMessageDetailsRequest()
        details.messageCode = message
        let answered = try a.call(Methods.Messages.getMessageDetails, details, token: token, callID: next())
        XCTAssertEqual(answered.taps.map(\.label), ["Go", "Stop"])
        XCTAssertEqual(answered.taps.map(\.count), [0, 1])
    }

    /// The same transaction id sent through A and B at once creates one message (both answer
    /// its code); a tap reported through B is counted once, and GetMessageDetails answers the
    /// same through both.
    func testTransactionIDsTapsAndDetailsAcrossServers() throws {
        let cluster = try PushwiredCluster(count: 2)
        defer { cluster.stopAll() }
        let (a, b) = (try cluster.client(0), try cluster.client(1))
        let (code, token) = try sharedApplication(cluster, a, b)
        _ = try register(code, "device-1", through: a)
        let categoryID = try XCTUnwrap(try sync(code, known: 0, through: a).categories.first?.categoryID)

        var codes: [String] = []
        for round in 0..<20 {
            var create = CreateMessageRequest()
            var notification = note("round \(round)", devices: ["device-1"])
            notification.transactionID = "txn-\(round)"
            notification.iosCategoryID = categoryID
            create.notifications = [notification]
            let id = next()
            // Both in flight at once: each server finds no message with the id and inserts.
            try a.sendRequest(callID: id, path: Methods.Messages.createMessage.path, create, token: token)
            try b.sendRequest(callID: id, path: Methods.Messages.createMessage.path, create, token: token)
            let (first, second) = (try a.nextResponse(), try b.nextResponse())
            XCTAssertEqual(first.code, 0, "round \(round) through A: \(first.message)")
            XCTAssertEqual(second.code, 0, "round \(round) through B: \(second.message)")
            let codeA = try CreateMessageResponse(decoding: first.body).messageCodes
            let codeB = try CreateMessageResponse(decoding: second.body).messageCodes
            XCTAssertEqual(codeA, codeB, "round \(round): two messages for one transaction id")
            codes += codeA
        }
        let database = try database(cluster)
        XCTAssertEqual(try database.query("SELECT count(*) FROM messages").int(0, 0), 20)

        let message = try XCTUnwrap(codes.first)
        let tap = buttonTap(code, "device-1", message: message, categoryID: categoryID, buttonID: 0)
        XCTAssertTrue(try b.call(Methods.Devices.trackAction, tap, callID: next()).recorded)
        XCTAssertFalse(try a.call(Methods.Devices.trackAction, tap, callID: next()).recorded, "the same tap again, through A")
        var request = GetMessageDetailsRequest()
        request.messageCode = message
        let throughA = try a.call(Methods.Messages.getMessageDetails, request, token: token, callID: next())
        let throughB = try b.call(Methods.Messages.getMessageDetails, request, token: token, callID: next())
        XCTAssertEqual(throughA.taps.map(\.count), [1, 0], "Yes tapped once, No never")
        XCTAssertEqual(throughA.taps, throughB.taps)
        XCTAssertEqual(throughA.messageCode, throughB.messageCode)
    }
}
