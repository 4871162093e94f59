import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

final class DevicesTests: XCTestCase {
    func testRegisterReturnsYesNoAndSkipsKnownVersion() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        let response = try await h.devices.registerDevice(registration(app.code, "d1"))
        XCTAssertEqual(response.categoriesVersion, 1)
        XCTAssertFalse(response.categoriesNotModified)
        let yesNo = try XCTUnwrap(response.iosCategories.first)
        XCTAssertEqual(yesNo.name, "YesNo")
        XCTAssertEqual(yesNo.buttons.map(\.label), ["Yes", "No"])
        XCTAssertEqual(yesNo.buttons.map(\.startApplication), [true, false])
        XCTAssertEqual(yesNo.buttons.map(\.authenticationRequired), [true, false])

        var again = registration(app.code, "d1")
        again.knownCategoriesVersion = 1
        let skipped = try await h.devices.registerDevice(again)
        XCTAssertTrue(skipped.categoriesNotModified)
        XCTAssertEqual(skipped.iosCategories, [])
        XCTAssertEqual(skipped.categoriesVersion, 1)
    }

    func testUnchangedRegistrationDoesNotWrite() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        var request = registration(app.code, "d1")
        request.tags = [makeTag("plan", .stringValue("gold"))]
        let (_, first) = try await h.devices.registerDeviceReportingOutcome(request)
        XCTAssertEqual(first, .written)
        let writes = h.store.statistics.writes
        for _ in 0..<50 {
            let (_, outcome) = try await h.devices.registerDeviceReportingOutcome(request)
            XCTAssertEqual(outcome, .unchangedCached)
        }
        XCTAssertEqual(h.store.statistics.writes, writes)

        // After a restart the fingerprints are gone: one read, still no write.
        h.store.close()
        let restarted = try await Harness(directory: h.directory)
        let (_, afterRestart) = try await restarted.devices.registerDeviceReportingOutcome(request)
        XCTAssertEqual(afterRestart, .unchangedStored)
        XCTAssertEqual(restarted.store.statistics.writes, 0)

        // A changed field writes.
        var changed = request
        changed.language = "fr"
        let (_, outcome) = try await restarted.devices.registerDeviceReportingOutcome(changed)
        XCTAssertEqual(outcome, .written)
        XCTAssertEqual(restarted.store.statistics.writes, 1)

        // SetTags changes the stored tag: registering with the old value must write it again.
        var setTags = SetTagsRequest()
        setTags.application = app.code
        setTags.hwid = "d1"
        var update = TagUpdate()
        update.name = "plan"
        update.operation = .set(tagValue(.stringValue("silver")))
        setTags.updates = [update]
        _ = try await restarted.devices.setTags(setTags)
        let (_, reset) = try await restarted.devices.registerDeviceReportingOutcome(changed)
        XCTAssertEqual(reset, .written)
        var get = GetTagsRequest()
        get.application = app.code
        get.hwid = "d1"
        await asyncAssertEqual(try await restarted.devices.getTags(get).tags, [makeTag("plan", .stringValue("gold"))])
        restarted.store.close()
    }

    func testValidation() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        func check(_ containing: String, _ edit: (inout RegisterDeviceRequest) -> Void) async {
            var request = registration(app.code, "d")
            edit(&request)
            await assertRPCError(.invalidArgument, containing) { try await h.devices.registerDevice(request) }
        }
        await check("application is empty") { $0.application = "" }
        await check("hwid is empty") { $0.hwid = "" }
        await check("hwid is longer") { $0.hwid = String(repeating: "h", count: 129) }
        await check("device type") { $0.deviceType = .unspecified }
        await check("device type") { $0.deviceType = .unrecognized(99) }
        await check("hexadecimal") { $0.pushToken = "xyz0" }
        await check("even number") { $0.pushToken = "abc" }
        await check("longer than 200") { $0.pushToken = String(repeating: "ab", count: 101) }
        await check("ISO-639-1") { $0.language = "english" }
        await check("ISO-639-1") { $0.language = "EN" }
        await check("ISO-639-1") { $0.language = "qq" }
        await check("timezone") { $0.timezone = 50_401 }
        await check("timezone") { $0.timezone = -50_401 }
        await check("too many tags") { $0.tags = (0..<65).map { makeTag("t\($0)", .intValue(1)) } }
        await check("tag name") { $0.tags = [makeTag(String(repeating: "n", count: 65), .intValue(1))] }
        await check("a tag name is empty") { $0.tags = [makeTag("", .intValue(1))] }
        await check("string longer") { $0.tags = [makeTag("s", .stringValue(String(repeating: "v", count: 257)))] }
        await check("no value") { var tag = Tag(); tag.name = "x"; $0.tags = [tag] }
        // Limits themselves are fine, and a non-iOS token need not be hex.
        var ok = registration(app.code, String(repeating: "h", count: 128), token: String(repeating: "AB", count: 100))
        ok.timezone = -50_400
        _ = try await h.devices.registerDevice(ok)
        var android = registration(app.code, "android")
        android.deviceType = .android
        android.pushToken = "fcm:token/with-non-hex"
        _ = try await h.devices.registerDevice(android)
        XCTAssertEqual(h.store.statistics.writes, 3)  // the application and the two devices
    }

    func testTagsSetIncrementRemoveAndErrors() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        _ = try await h.devices.registerDevice(registration(app.code, "d"))
        func update(_ name: String, _ operation: TagUpdate.Operation?) -> TagUpdate {
            var update = TagUpdate()
            update.name = name
            update.operation = operation
            return update
        }
        var request = SetTagsRequest()
        request.application = app.code
        request.hwid = "d"
        var list = StringList()
        list.values = ["a", "b"]
        request.updates = [
            update("count", .increment(2)), update("count", .increment(3)), update("premium", .set(tagValue(.boolValue(true)))),
            update("seen", .set(tagValue(.dateValue(1_700_000_000)))), update("groups", .set(tagValue(.listValue(list)))),
            update("tmp", .set(tagValue(.stringValue("x")))), update("tmp", .remove(true)),
        ]
        let response = try await h.devices.setTags(request)
        XCTAssertEqual(response.tags, [
            makeTag("count", .intValue(5)), makeTag("groups", .listValue(list)), makeTag("premium", .boolValue(true)),
            makeTag("seen", .dateValue(1_700_000_000)),
        ])
        request.updates = [update("premium", .increment(1))]
        await assertRPCError(.failedPrecondition, "not an integer") { try await h.devices.setTags(request) }
        request.updates = [update("x", nil)]
        await assertRPCError(.invalidArgument, "no operation") { try await h.devices.setTags(request) }
        request.updates = (0..<65).map { update("t\($0)", .remove(true)) }
        await assertRPCError(.invalidArgument, "too many") { try await h.devices.setTags(request) }
        request.hwid = "unknown"
        request.updates = [update("a", .remove(true))]
        await assertRPCError(.notFound, "device unknown") { try await h.devices.setTags(request) }
    }

    func testUnregisterClearsTheToken() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        _ = try await h.devices.registerDevice(registration(app.code, "d"))
        let appID = try XCTUnwrap(h.registry.directory.application(code: app.code)?.id)
        var request = UnregisterDeviceRequest()
        request.application = app.code
        request.hwid = "d"
        _ = try await h.devices.unregisterDevice(request)
        await asyncAssertEqual(try await h.store.device(applicationID: appID, hwid: "d")?.pushToken, "")
        // Registering again with the same token writes it back (the fingerprint was forgotten).
        _ = try await h.devices.registerDevice(registration(app.code, "d"))
        await asyncAssertEqual(try await h.store.device(applicationID: appID, hwid: "d")?.pushToken, "0a1b2c3d")
        request.hwid = "nobody"
        await assertRPCError(.notFound, "device nobody") { try await h.devices.unregisterDevice(request) }
    }

    func testApplicationsAreIsolated() async throws {
        let h = try await Harness()
        let a = try await h.createApplication("a")
        let b = try await h.createApplication("b")
        var request = registration(a.code, "shared-hwid")
        request.tags = [makeTag("owner", .stringValue("a"))]
        _ = try await h.devices.registerDevice(request)
        var get = GetTagsRequest()
        get.application = b.code
        get.hwid = "shared-hwid"
        await assertRPCError(.notFound) { try await h.devices.getTags(get) }
        var setTags = SetTagsRequest()
        setTags.application = b.code
        setTags.hwid = "shared-hwid"
        await assertRPCError(.notFound) { try await h.devices.setTags(setTags) }
        var unregister = UnregisterDeviceRequest()
        unregister.application = b.code
        unregister.hwid = "shared-hwid"
        await assertRPCError(.notFound) { try await h.devices.unregisterDevice(unregister) }

        // The same hwid in B is a different device.
        var inB = registration(b.code, "shared-hwid")
        inB.tags = [makeTag("owner", .stringValue("b"))]
        _ = try await h.devices.registerDevice(inB)
        get.application = a.code
        await asyncAssertEqual(try await h.devices.getTags(get).tags, [makeTag("owner", .stringValue("a"))])
        get.application = b.code
        await asyncAssertEqual(try await h.devices.getTags(get).tags, [makeTag("owner", .stringValue("b"))])

        // A's category change shows in A's sync only.
        _ = try await h.categories.upsertCategory(upsertRequest(makeCategory("Rate", buttons: [makeButton(0, "5")])),
                                                  caller: Caller(bearerToken: a.token))
        var sync = SyncCategoriesRequest()
        sync.application = b.code
        sync.knownVersion = 1
        await asyncAssertTrue(try await h.devices.syncCategories(sync).notModified)
        sync.application = a.code
        let syncA = try await h.devices.syncCategories(sync)
        XCTAssertFalse(syncA.notModified)
        XCTAssertEqual(syncA.categories.map(\.name), ["YesNo", "Rate"])
        let listB = try await h.categories.listCategories(ListCategoriesRequest(), caller: Caller(bearerToken: b.token))
        XCTAssertEqual(listB.categories.map(\.name), ["YesNo"])
    }
}
