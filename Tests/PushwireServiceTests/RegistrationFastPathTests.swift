import Foundation
import PushwireRuntime
import PushwireSQLiteStore
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// The raw fast paths of SyncCategories and RegisterDevice: byte for byte the regular path's
/// answers, declined (so answered by the regular path) whenever that path would say something
/// else, and over a real server: category changes reach devices at once, new devices are stored.
final class RegistrationFastPathTests: XCTestCase {
    private func bytes(_ answer: RawAnswer) -> [UInt8]? {
        if case .response(let body) = answer { return body }
        return nil
    }

    private func isDeclined(_ answer: RawAnswer) -> Bool {
        if case .decline = answer { return true }
        return false
    }

    func testFastAnswersAreTheRegularAnswers() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        var sync = SyncCategoriesRequest()
        sync.application = app.code
        // CreateApplication cached the categories: the fast path answers at once, as the regular one.
        XCTAssertFalse(isDeclined(h.devices.syncCategoriesFastPath(sync.encode())))
        let full = try await h.devices.syncCategories(sync)
        XCTAssertEqual(bytes(h.devices.syncCategoriesFastPath(sync.encode())), full.encode())
        sync.knownVersion = full.version
        await asyncAssertEqual(bytes(h.devices.syncCategoriesFastPath(sync.encode())), try await h.devices.syncCategories(sync).encode())

        var register = registration(app.code, "d1", token: "0A1B2C3D")
        _ = try await h.devices.registerDevice(register)
        for known in [0, full.version, full.version + 7] {
            register.knownCategoriesVersion = known
            let (regular, outcome) = try await h.devices.registerDeviceReportingOutcome(register)
            XCTAssertEqual(outcome, .unchangedCached)
            XCTAssertEqual(bytes(h.devices.registerDeviceFastPath(register.encode())), regular.encode(), "known \(known)")
        }
    }

    /// What the event loop answers comes from the caches alone: with the categories not cached
    /// (a change through another path dropped them), every on-loop answer declines to the task
    /// path, which reads the store and caches them; a change made here refreshes them at once.
    func testTheLoopNeverReadsTheStore() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        let application = try XCTUnwrap(h.registry.directory.application(code: app.code))
        // A change the service did not make (as another server's would be): the version moves,
        // the cached list is dropped, and nothing is read yet.
        let (_, version) = try await h.store.upsertCategory(applicationID: application.id,
                                                            CategoryRecord(id: 0, name: "Other", buttons: [ButtonRecord(id: 0, label: "OK")]))
        h.registry.directory.categoriesChanged(code: app.code, version: version)
        var sync = SyncCategoriesRequest()
        sync.application = app.code
        XCTAssertNil(try h.devices.syncCategoriesIfCached(sync))
        XCTAssertTrue(isDeclined(h.devices.syncCategoriesFastPath(sync.encode())))
        XCTAssertNil(try h.categories.listCategoriesIfCached(ListCategoriesRequest(), caller: Caller(bearerToken: app.token)))
        let register = registration(app.code, "d1")
        _ = try await h.devices.registerDevice(register)  // the task path: it reads and caches
        XCTAssertNotNil(try h.devices.cachedResponse(for: register), "cached again by the read")
        XCTAssertNotNil(try h.devices.syncCategoriesIfCached(sync))

        var upsert = upsertRequest(makeCategory("Rate", buttons: [makeButton(0, "Good")]))
        upsert.category?.categoryID = 0
        _ = try await h.categories.upsertCategory(upsert, caller: Caller(bearerToken: app.token))
        let listed = try XCTUnwrap(try h.categories.listCategoriesIfCached(ListCategoriesRequest(), caller: Caller(bearerToken: app.token)),
                                   "a change made here is read back into the cache before it is answered")
        XCTAssertEqual(listed.categories.map(\.name), ["YesNo", "Other", "Rate"])
    }

    func testEveryErrorIsLeftToTheRegularPath() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        var sync = SyncCategoriesRequest()
        sync.application = app.code
        _ = try await h.devices.syncCategories(sync)  // caches the categories
        sync.application = "NOPE0-00000"
        XCTAssertTrue(isDeclined(h.devices.syncCategoriesFastPath(sync.encode())))
        sync.application = ""
        XCTAssertTrue(isDeclined(h.devices.syncCategoriesFastPath(sync.encode())))
        XCTAssertTrue(isDeclined(h.devices.syncCategoriesFastPath([0x0A, 100, 0x41])))

        var bad = registration(app.code, "d1", token: "not hex")
        XCTAssertTrue(isDeclined(h.devices.registerDeviceFastPath(bad.encode())))
        bad = registration(app.code, "")
        XCTAssertTrue(isDeclined(h.devices.registerDeviceFastPath(bad.encode())))
        var tagged = registration(app.code, "d2")
        tagged.tags = [makeTag("plan", .stringValue("gold"))]
        XCTAssertTrue(isDeclined(h.devices.registerDeviceFastPath(tagged.encode())))
    }

    func testOverARealServer() async throws {
        let dir = NSTemporaryDirectory() + "pushwire-fastpath-\(getpid())-\(UUID().uuidString.prefix(8))"
        var services: PushwireServices? = try await makePushwireServices(dataDirectory: dir, adminToken: "root")
        let server = Server(configuration: ServerConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"), threads: 2),
                            logger: Logger(label: "test", level: .warning))
        services?.register(on: server)
        let address = try server.start()
        let client = try RawClient(port: UInt16(address.port))
        var callID: UInt32 = 0
        func next() -> UInt32 { callID += 1; return callID }

        var create = CreateApplicationRequest()
        create.name = "fast"
        let created = try client.call(Methods.Admin.createApplication, create, token: "root", callID: next())
        let code = try XCTUnwrap(created.application?.code)

        // Sync: errors as before, and a category change is seen by the very next sync.
        var sync = SyncCategoriesRequest()
        sync.application = "NOPE0-00000"
        XCTAssertThrowsError(try client.call(Methods.Devices.syncCategories, sync, callID: next())) { error in
            XCTAssertEqual((error as? RPCError)?.code, .notFound)
        }
        sync.application = code
        let first = try client.call(Methods.Devices.syncCategories, sync, callID: next())
        sync.knownVersion = first.version
        XCTAssertTrue(try client.call(Methods.Devices.syncCategories, sync, callID: next()).notModified)
        _ = try client.call(Methods.Categories.upsertCategory,
                            upsertRequest(makeCategory("Rate", buttons: [makeButton(1, "Good"), makeButton(2, "Bad")])),
                            token: created.accessToken, callID: next())
        let changed = try client.call(Methods.Devices.syncCategories, sync, callID: next())
        XCTAssertFalse(changed.notModified)
        XCTAssertEqual(changed.categories.map(\.name), ["YesNo", "Rate"])
        XCTAssertEqual(changed.version, first.version + 1)

        // Register: many new devices in flight at once, each stored; errors as before.
        let devices = 200
        for i in 0..<devices {
            var register = registration(code, "device-\(i)", token: String(format: "%08x", i))
            register.knownCategoriesVersion = i % 2 == 0 ? changed.version : 0
            try client.sendRequest(callID: UInt32(10_000 + i), path: Methods.Devices.registerDevice.path, register)
        }
        var answered = Set<UInt32>()
        for _ in 0..<devices {
            let (id, status, message, body) = try client.nextResponse()
            XCTAssertEqual(status, 0, message)
            let response = try RegisterDeviceResponse(decoding: body)
            answered.insert(id)
            let i = Int(id) - 10_000
            XCTAssertEqual(response.categoriesVersion, changed.version)
            XCTAssertEqual(response.categoriesNotModified, i % 2 == 0)
            XCTAssertEqual(response.iosCategories.count, i % 2 == 0 ? 0 : 2)
        }
        XCTAssertEqual(answered.count, devices)
        var invalid = registration(code, "bad", token: "xyz")
        XCTAssertThrowsError(try client.call(Methods.Devices.registerDevice, invalid, callID: next())) { error in
            XCTAssertEqual((error as? RPCError)?.code, .invalidArgument)
        }
        invalid = registration("NOPE0-00000", "bad")
        XCTAssertThrowsError(try client.call(Methods.Devices.registerDevice, invalid, callID: next())) { error in
            XCTAssertEqual((error as? RPCError)?.code, .notFound)
        }
        // A changed device is written again; an unchanged one is answered without a write.
        var moved = registration(code, "device-1", token: "ffff0000")
        moved.language = "fr"
        _ = try client.call(Methods.Devices.registerDevice, moved, callID: next())
        let writes = services?.registry.store.statistics.writes
        _ = try client.call(Methods.Devices.registerDevice, moved, callID: next())
        XCTAssertEqual(services?.registry.store.statistics.writes, writes)

        server.shutdownNow()
        server.waitUntilStopped()
        services?.close()
        services = nil

        // Every acknowledged registration is in the store, with its last values.
        let store = try SQLiteStore(dataDirectory: dir)
        defer { store.close() }
        let application = try await unwrap(try await store.listApplications().first { $0.code == code })
        for i in 0..<devices {
            await asyncAssertNotNil(try await store.device(applicationID: application.id, hwid: "device-\(i)"), "device-\(i)")
        }
        let stored = try await unwrap(try await store.device(applicationID: application.id, hwid: "device-1"))
        XCTAssertEqual(stored.pushToken, "ffff0000")
        XCTAssertEqual(stored.language, "fr")
    }
}

/// The fast paths take the message bytes in place; the tests hold them in arrays.
extension DevicesService {
    fileprivate func syncCategoriesFastPath(_ message: [UInt8]) -> RawAnswer {
        message.withUnsafeBytes { syncCategoriesFastPath($0) }
    }

    fileprivate func registerDeviceFastPath(_ message: [UInt8]) -> RawAnswer {
        message.withUnsafeBytes { registerDeviceFastPath($0) }
    }
}
