import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// What is particular to the PostgreSQL engine: migrations, group commit, a failing write undone
/// alone, and a database that goes away and comes back.
final class PostgresEngineTests: XCTestCase {
    private func application(_ code: String) -> ApplicationRecord {
        ApplicationRecord(id: 0, code: code, name: "App \(code)", accessTokenHash: [1, 2, 0, 255], apns: nil, categoriesVersion: 0,
                          createdAt: 1_700_000_000)
    }

    private func device(_ applicationID: Int64, _ hwid: String, token: String = "tok") -> DeviceRecord {
        DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: 1, language: "en", timezone: 3600,
                     userID: "user-\(hwid)", appVersion: "1.0")
    }

    /// Several stores opening one new database at once migrate it once (the advisory lock): all
    /// open, and the schema table holds one version.
    func testServersStartingTogetherMigrateOnce() async throws {
        let url = try freshDatabaseURL()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<4 {
                group.addTask { try PostgresStore(url: url, readers: 1) }
            }
            var stores: [PostgresStore] = []
            for try await store in group { stores.append(store) }
            return stores
        }
        XCTAssertEqual(stores.count, 4)
        let connection = try PGConnection(url: url, connectTimeout: 5)
        let rows = try connection.query("SELECT version FROM pushwire_schema")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.int(0, 0), Int64(PostgresSchema.currentVersion))
        for store in stores { store.close() }
    }

    /// A database migrated by a newer binary is refused with a message that says so.
    func testNewerSchemaIsRefused() throws {
        let url = try freshDatabaseURL()
        PostgresStore.openAndClose(url)
        let connection = try PGConnection(url: url, connectTimeout: 5)
        try connection.query("UPDATE pushwire_schema SET version = $1", [String(PostgresSchema.currentVersion + 1)])
        XCTAssertThrowsError(try PostgresStore(url: url)) { error in
            guard case StoreError.schemaTooNew(_, let found, let supported) = error else {
                return XCTFail("expected schemaTooNew, got \(error)")
            }
            XCTAssertEqual(found, PostgresSchema.currentVersion + 1)
            XCTAssertEqual(supported, PostgresSchema.currentVersion)
            XCTAssertTrue("\(error)".contains("use a newer pushwired"), "\(error)")
        }
    }

    /// A URL that is not PostgreSQL's, or a server that does not answer, fails to open with the
    /// URL (without its password) in the message.
    func testBadURLsFailToOpen() throws {
        XCTAssertThrowsError(try PostgresStore(url: "mysql://a@b/c")) { error in
            guard case StoreError.cannotOpen = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try PostgresStore(url: "postgresql://who:secret@127.0.0.1:1/none")) { error in
            guard case StoreError.cannotOpen(let location, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(location, "postgresql://who@127.0.0.1:1/none")
            XCTAssertFalse("\(error)".contains("secret"))
        }
    }

    func testRedactedURL() {
        XCTAssertEqual(PostgresStore.redacted("postgresql://u:p@h:5432/d?sslmode=require"), "postgresql://u@h:5432/d?sslmode=require")
        XCTAssertEqual(PostgresStore.redacted("postgresql://u@h/d"), "postgresql://u@h/d")
        XCTAssertEqual(PostgresStore.redacted("postgresql://h/d"), "postgresql://h/d")
    }

    /// 256 registrations in flight at once are committed in a few transactions (group commit),
    /// each caller answered after its COMMIT; registering them again unchanged writes no row.
    func testConcurrentRegistrationsShareTransactions() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00001"), initialCategories: [])
        let before = store.statistics
        let count = 256
        let errors = try await register(store, (0..<count).map { device(app.id, "hw-\($0)") })
        XCTAssertEqual(errors, 0)
        let after = store.statistics
        XCTAssertEqual(after.writes - before.writes, count)
        XCTAssertLessThan(after.transactions - before.transactions, count / 4, "registrations were not grouped")
        let stored = try await store.device(applicationID: app.id, hwid: "hw-17")
        XCTAssertEqual(stored, device(app.id, "hw-17"))
        // Unchanged: the upsert's WHERE leaves every row alone (xmin stays).
        let connection = try PGConnection(url: store.url, connectTimeout: 5)
        let xmin = try connection.query("SELECT xmin::text FROM devices WHERE hwid = 'hw-17'").text(0, 0)
        _ = try await register(store, (0..<count).map { device(app.id, "hw-\($0)") })
        XCTAssertEqual(try connection.query("SELECT xmin::text FROM devices WHERE hwid = 'hw-17'").text(0, 0), xmin)
        // Two registrations of one device in a batch: the later one wins.
        _ = try await register(store, [device(app.id, "hw-1", token: "first"), device(app.id, "hw-1", token: "second")])
        let twice = try await store.device(applicationID: app.id, hwid: "hw-1")
        XCTAssertEqual(twice?.pushToken, "second")
    }

    /// A registration that cannot be written (a NUL byte, which PostgreSQL text cannot hold)
    /// among concurrent ones fails alone: the group's statement is split and the others commit.
    func testFailingRegistrationInAGroupFailsAlone() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00004"), initialCategories: [])
        let devices = (0..<64).map { device(app.id, $0 == 31 ? "bad\u{0}hwid" : "ok-\($0)") }
        let failed = try await register(store, devices)
        XCTAssertEqual(failed, 1)
        for index in [0, 30, 32, 63] {
            let stored = try await store.device(applicationID: app.id, hwid: "ok-\(index)")
            XCTAssertNotNil(stored, "ok-\(index) was not written")
        }
    }

    private func register(_ store: PostgresStore, _ devices: [DeviceRecord]) async throws -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for device in devices {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        store.upsertDevice(device) { error in continuation.resume(returning: error == nil) }
                    }
                }
            }
            var failed = 0
            for await ok in group where !ok { failed += 1 }
            return failed
        }
    }

    /// A write that fails (a category name taken) inside a batch of concurrent writes fails
    /// alone: every other write of the batch commits.
    func testFailingWriteIsUndoneAlone() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00002"), initialCategories: [])
        let buttons = [ButtonRecord(id: 0, label: "OK")]
        _ = try await store.upsertCategory(applicationID: app.id, CategoryRecord(id: 0, name: "Taken", buttons: buttons))
        let outcomes = await withTaskGroup(of: (String, String).self) { group in
            // 24 writes: under StoreLimits.maxCategoriesPerApplication (32) with the one before.
            for index in 0..<24 {
                group.addTask {
                    let name = index == 12 ? "Taken" : "Free\(index)"
                    do {
                        _ = try await store.upsertCategory(applicationID: app.id, CategoryRecord(id: 0, name: name, buttons: buttons))
                        return (name, "ok")
                    } catch StoreError.conflict {
                        return (name, "conflict")
                    } catch {
                        return (name, "\(error)")
                    }
                }
            }
            var outcomes: [String: String] = [:]
            for await (name, ok) in group { outcomes[name] = ok }
            return outcomes
        }
        XCTAssertEqual(outcomes["Taken"], "conflict")
        XCTAssertEqual(outcomes.values.filter { $0 == "ok" }.count, 23, "\(outcomes)")
        let set = try await store.categories(applicationID: app.id)
        XCTAssertEqual(set.categories.count, 24)
        XCTAssertEqual(set.version, 1 + 1 + 23)
    }

    /// The database stopped: writes fail with `.unavailable` and the store says it is not
    /// serving; started again: the store serves again by itself, and what was acknowledged
    /// before is there.
    func testDatabaseOutageAndRecovery() async throws {
        _ = try testDatabaseURL()
        let lines = try postgresScript(["start", "--fast"])
        guard lines.count >= 2 else { return XCTFail("Scripts/postgres start printed \(lines)") }
        let (url, directory) = (lines[0], lines[1])
        defer { _ = try? postgresScript(["stop", directory]) }
        let store = try PostgresStore(url: url, readers: 1)
        defer { store.close() }
        let app = try await store.createApplication(application("AAAAA-00003"), initialCategories: [])
        try await store.upsertDevice(device(app.id, "kept"), tags: [])
        XCTAssertTrue(store.isServing)

        try postgresScript(["down", directory])
        do {
            try await store.upsertDevice(device(app.id, "lost"), tags: [])
            XCTFail("a write succeeded with the database down")
        } catch {
            guard case .unavailable = error else { return XCTFail("expected unavailable, got \(error)") }
        }
        let notServing = await eventually { !store.isServing }
        XCTAssertTrue(notServing)
        XCTAssertTrue(store.notServingReason.contains("unreachable"), store.notServingReason)

        try postgresScript(["up", directory])
        let serving = await eventually { store.isServing }
        XCTAssertTrue(serving, "the store did not come back: \(store.notServingReason)")
        let resumed = await eventually {
            (try? await store.upsertDevice(device(app.id, "after"), tags: [])) != nil
        }
        XCTAssertTrue(resumed)
        let kept = try await store.device(applicationID: app.id, hwid: "kept")
        XCTAssertNotNil(kept)
        let lost = try await store.device(applicationID: app.id, hwid: "lost")
        XCTAssertNil(lost)
    }
}

extension PostgresStore {
    /// Opens and closes a store on `url` (migrating it).
    static func openAndClose(_ url: String) {
        (try? PostgresStore(url: url, readers: 1))?.close()
    }
}
