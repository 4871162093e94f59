import CSQLite
import Foundation
import Synchronization
import PushwireSQLiteStore
import PushwireStore
import XCTest

final class SQLiteStoreTests: XCTestCase {
    func testCreatesSchemaAndReopens() async throws {
        let dir = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: dir)
        let yesNo = CategoryRecord(id: 0, name: "YesNo", buttons: [ButtonRecord(id: 0, label: "Yes"), ButtonRecord(id: 1, label: "No")])
        let app = try await store.createApplication(sampleApplication(code: "AAAAA-11111"), initialCategories: [yesNo])
        XCTAssertEqual(app.categoriesVersion, 1)
        try await store.upsertDevice(sampleDevice(app.id, "d1"), tags: [.set("level", .int(3))])
        store.close()

        let reopened = try SQLiteStore(dataDirectory: dir)
        await asyncAssertEqual(try await reopened.listApplications().map(\.code), ["AAAAA-11111"])
        await asyncAssertEqual(try await reopened.device(applicationID: app.id, hwid: "d1"), sampleDevice(app.id, "d1"))
        await asyncAssertEqual(try await reopened.tags(applicationID: app.id, hwid: "d1"), [TagRecord(name: "level", value: .int(3))])
        let set = try await reopened.categories(applicationID: app.id)
        XCTAssertEqual(set.version, 1)
        XCTAssertEqual(set.categories.map(\.name), ["YesNo"])
        XCTAssertEqual(set.categories.first?.buttons.map(\.label), ["Yes", "No"])
        reopened.close()
    }

    func testRefusesNewerSchema() async throws {
        let dir = temporaryDataDirectory()
        try SQLiteStore(dataDirectory: dir).close()
        // Pretend a future binary migrated the file.
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(dir + "/" + SQLiteStore.fileName, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "PRAGMA user_version = 99", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        XCTAssertThrowsError(try SQLiteStore(dataDirectory: dir)) { error in
            guard case StoreError.schemaTooNew(_, let found, let supported) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(found, 99)
            // 2: messages (issue 6); 3: messages_due partial; 4: FCM, per-platform counts; 5: messages_by_app (issue 20);
            // 6: a refused token's state and time (issue 20); 7: the platform a message's row counts;
            // 8: a message's targeting and spec in `message_bodies`
            XCTAssertEqual(supported, 8)
            XCTAssertTrue("\(error)".contains("99") && "\(error)".contains("version 8"), "\(error)")
        }
    }

    func testCorruptFileIsAClearError() async throws {
        let dir = temporaryDataDirectory()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: dir + "/" + SQLiteStore.fileName))
        XCTAssertThrowsError(try SQLiteStore(dataDirectory: dir)) { error in
            guard case StoreError.corrupt(let path, _) = error else { return XCTFail("unexpected \(error)") }
            XCTAssertTrue(path.hasSuffix(SQLiteStore.fileName))
            XCTAssertTrue("\(error)".contains("corrupt"), "\(error)")
        }
    }

    func testUnwritableDataDirectoryIsAClearError() async throws {
        let dir = temporaryDataDirectory()
        let file = dir + "/not-a-directory"
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        // A path that is a file, and a path below a file: neither can hold a database (this holds
        // even for root, unlike permission bits).
        for path in [file, file + "/data"] {
            XCTAssertThrowsError(try SQLiteStore(dataDirectory: path)) { error in
                guard case StoreError.cannotOpen(let reported, _) = error else { return XCTFail("unexpected \(error)") }
                XCTAssertTrue(reported.hasPrefix(file), reported)
            }
        }
        if getuid() != 0 {
            let readOnly = dir + "/read-only"
            try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
            chmod(readOnly, 0o500)
            defer { chmod(readOnly, 0o700) }
            XCTAssertThrowsError(try SQLiteStore(dataDirectory: readOnly))
        }
    }

    func testGroupCommitUnderConcurrentWriters() async throws {
        let dir = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: dir)
        let app = try await store.createApplication(sampleApplication(code: "BBBBB-22222"), initialCategories: [])
        let writers = 400
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<writers {
                group.addTask { try await store.upsertDevice(sampleDevice(app.id, "dev-\(i)"), tags: []) }
            }
            try await group.waitForAll()
        }
        let stats = store.statistics
        XCTAssertEqual(stats.writes, writers + 1)
        // Many writes shared a transaction.
        XCTAssertLessThan(stats.transactions, writers, "\(stats)")
        store.close()
        let reopened = try SQLiteStore(dataDirectory: dir)
        for i in 0..<writers {
            await asyncAssertEqual(try await reopened.device(applicationID: app.id, hwid: "dev-\(i)"), sampleDevice(app.id, "dev-\(i)"))
        }
        reopened.close()
    }

    func testCallbackUpsertsAreDurableAndLeaveUnchangedRowsAlone() async throws {
        let dir = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: dir)
        let app = try await store.createApplication(sampleApplication(code: "EEEEE-55555"), initialCategories: [])
        // Concurrent writers from plain threads, as the server's event loops call it.
        let writers = 300
        let done = DispatchGroup()
        let failures = Mutex(0)
        for i in 0..<writers {
            done.enter()
            DispatchQueue.global().async {
                store.upsertDevice(sampleDevice(app.id, "cb-\(i)")) { error in
                    if error != nil { failures.withLock { $0 += 1 } }
                    done.leave()
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertLessThan(store.statistics.transactions, writers, "\(store.statistics)")

        // An identical upsert leaves the row as it was (its updated_at, zeroed here by hand,
        // stays zero); a changed one rewrites it.
        try executeSQL(dir, "UPDATE devices SET updated_at = 0 WHERE hwid = 'cb-1'")
        try await upsert(store, sampleDevice(app.id, "cb-1"))
        XCTAssertEqual(try integerSQL(dir, "SELECT updated_at FROM devices WHERE hwid = 'cb-1'"), 0)
        try await upsert(store, sampleDevice(app.id, "cb-1", token: "ffee"))
        XCTAssertGreaterThan(try integerSQL(dir, "SELECT updated_at FROM devices WHERE hwid = 'cb-1'"), 0)
        store.close()

        let reopened = try SQLiteStore(dataDirectory: dir)
        for i in 0..<writers where i != 1 {
            await asyncAssertEqual(try await reopened.device(applicationID: app.id, hwid: "cb-\(i)"), sampleDevice(app.id, "cb-\(i)"))
        }
        await asyncAssertEqual(try await reopened.device(applicationID: app.id, hwid: "cb-1")?.pushToken, "ffee")
        reopened.close()
    }

    private func upsert(_ store: SQLiteStore, _ device: DeviceRecord) async throws {
        let error: StoreError? = await withCheckedContinuation { continuation in
            store.upsertDevice(device) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    func testFailingWriteDoesNotSpoilItsBatch() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        let app = try await store.createApplication(sampleApplication(code: "CCCCC-33333"), initialCategories: [])
        try await store.upsertDevice(sampleDevice(app.id, "d"), tags: [.set("name", .string("x"))])
        async let bad = store.updateTags(applicationID: app.id, hwid: "d", [.set("a", .int(1)), .increment("name", 1)])
        async let good = store.updateTags(applicationID: app.id, hwid: "d", [.set("b", .bool(true))])
        do {
            _ = try await bad
            XCTFail("incrementing a string tag must fail")
        } catch {
            guard case StoreError.invalidChange = error else { return XCTFail("unexpected \(error)") }
        }
        _ = try await good
        // The failing update left nothing behind (all or nothing); the other one committed.
        await asyncAssertEqual(try await store.tags(applicationID: app.id, hwid: "d"),
                       [TagRecord(name: "b", value: .bool(true)), TagRecord(name: "name", value: .string("x"))])
        store.close()
    }

    func testTagsAndIncrement() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        let app = try await store.createApplication(sampleApplication(code: "DDDDD-44444"), initialCategories: [])
        try await store.upsertDevice(sampleDevice(app.id, "d"), tags: [])
        let tags = try await store.updateTags(applicationID: app.id, hwid: "d", [
            .increment("n", 5), .increment("n", 2), .set("l", .list(["a", "b"])), .set("t", .date(42)), .set("x", .int(1)), .remove("x"),
        ])
        XCTAssertEqual(tags, [TagRecord(name: "l", value: .list(["a", "b"])), TagRecord(name: "n", value: .int(7)),
                              TagRecord(name: "t", value: .date(42))])
        do {
            _ = try await store.updateTags(applicationID: app.id, hwid: "missing", [.remove("x")])
            XCTFail("unknown device")
        } catch {
            XCTAssertEqual(error, .notFound("device missing"))
        }
        await asyncAssertNil(try await store.tags(applicationID: app.id, hwid: "missing"))
        let removed = try await store.unregisterDevice(applicationID: app.id, hwid: "d")
        XCTAssertTrue(removed)
        await asyncAssertEqual(try await store.device(applicationID: app.id, hwid: "d")?.pushToken, "")
        let missing = try await store.unregisterDevice(applicationID: app.id, hwid: "nope")
        XCTAssertFalse(missing)
        store.close()
    }

    func testCategoriesBumpVersionAndStayInTheirApplication() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        let a = try await store.createApplication(sampleApplication(code: "EEEEE-55555"), initialCategories: [])
        let b = try await store.createApplication(sampleApplication(code: "FFFFF-66666"), initialCategories: [])
        let (created, v2) = try await store.upsertCategory(applicationID: a.id, CategoryRecord(id: 0, name: "Rate", buttons: [ButtonRecord(id: 0, label: "5")]))
        XCTAssertEqual(v2, 2)
        XCTAssertNotEqual(created.id, 0)
        do {
            _ = try await store.deleteCategory(applicationID: b.id, categoryID: created.id)
            XCTFail("b must not delete a's category")
        } catch {
            XCTAssertEqual(error, .wrongApplication("category \(created.id)"))
        }
        do {
            _ = try await store.upsertCategory(applicationID: a.id, CategoryRecord(id: 0, name: "Rate", buttons: []))
            XCTFail("duplicate name")
        } catch {
            guard case .conflict = error else { return XCTFail("unexpected \(error)") }
        }
        await asyncAssertEqual(try await store.categories(applicationID: b.id), CategorySet(categories: [], version: 1))
        let v3 = try await store.deleteCategory(applicationID: a.id, categoryID: created.id)
        XCTAssertEqual(v3, 3)
        await asyncAssertEqual(try await store.categories(applicationID: a.id), CategorySet(categories: [], version: 3))
        store.close()
    }

    func testUpdateApplication() async throws {
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        _ = try await store.createApplication(sampleApplication(code: "GGGGG-77777"), initialCategories: [])
        let apns = APNsSettingsRecord(teamID: "T", keyID: "K", topic: "com.x", privateKeyP8: "PEM", environment: 1)
        let updated = try await store.updateApplication(code: "GGGGG-77777", ApplicationUpdate(name: "new", apns: .some(apns), accessTokenHash: [1]))
        XCTAssertEqual(updated.name, "new")
        await asyncAssertEqual(try await store.listApplications().first, updated)
        let cleared = try await store.updateApplication(code: "GGGGG-77777", ApplicationUpdate(apns: .some(nil)))
        XCTAssertNil(cleared.apns)
        do {
            _ = try await store.updateApplication(code: "ZZZZZ-00000", ApplicationUpdate(name: "x"))
            XCTFail("unknown")
        } catch {
            XCTAssertEqual(error, .notFound("application ZZZZZ-00000"))
        }
        store.close()
    }
}
