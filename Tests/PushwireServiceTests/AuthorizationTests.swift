import PushwireWire
import XCTest
@testable import PushwireService

/// The auth matrix: every Admin and Categories method without a token, with a wrong one, and with
/// a valid token of the wrong kind or of another application.
final class AuthorizationTests: XCTestCase {
    func testAdminMethodsNeedTheAdminToken() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        var update = UpdateApplicationRequest()
        update.application = app.code
        update.name = "renamed"
        var create = CreateApplicationRequest()
        create.name = "x"
        let calls: [(String, (Caller) async throws -> Void)] = [
            ("create", { _ = try await h.admin.createApplication(create, caller: $0) }),
            ("update", { _ = try await h.admin.updateApplication(update, caller: $0) }),
            ("list", { _ = try h.admin.listApplications(ListApplicationsRequest(), caller: $0) }),
        ]
        for (name, call) in calls {
            await assertRPCError(.unauthenticated, "authorization") { try await call(Caller()) }
            await assertRPCError(.unauthenticated, "invalid admin token") { try await call(Caller(bearerToken: "nope")) }
            await assertRPCError(.permissionDenied) { try await call(Caller(bearerToken: app.token)) }
            do { try await call(Harness.adminCaller) } catch { XCTFail("\(name) with the admin token: \(error)") }
        }
    }

    func testCategoryMethodsNeedTheApplicationsToken() async throws {
        let h = try await Harness()
        let a = try await h.createApplication("a")
        let b = try await h.createApplication("b")
        let listA = try await h.categories.listCategories(ListCategoriesRequest(), caller: Caller(bearerToken: a.token))
        let yesNoA = try XCTUnwrap(listA.categories.first?.categoryID)
        var delete = DeleteCategoryRequest()
        delete.categoryID = yesNoA
        let replace = upsertRequest(makeCategory("Renamed", id: yesNoA, buttons: [makeButton(0, "OK")]))
        let create = upsertRequest(makeCategory("New", buttons: [makeButton(0, "OK")]))
        let calls: [(String, (Caller) async throws -> Void)] = [
            ("upsert new", { _ = try await h.categories.upsertCategory(create, caller: $0) }),
            ("upsert existing", { _ = try await h.categories.upsertCategory(replace, caller: $0) }),
            ("list", { _ = try await h.categories.listCategories(ListCategoriesRequest(), caller: $0) }),
            ("delete", { _ = try await h.categories.deleteCategory(delete, caller: $0) }),
        ]
        for (_, call) in calls {
            await assertRPCError(.unauthenticated, "authorization") { try await call(Caller()) }
            await assertRPCError(.unauthenticated, "invalid access token") { try await call(Caller(bearerToken: "0123")) }
            await assertRPCError(.permissionDenied, "admin token") { try await call(Harness.adminCaller) }
            // B's valid token, aimed at A.
            await assertRPCError(.permissionDenied) { try await call(Caller(bearerToken: b.token, applicationCode: a.code)) }
        }
        // B's token on A's category id (without naming A) is refused too.
        await assertRPCError(.permissionDenied, "another application") {
            try await h.categories.upsertCategory(replace, caller: Caller(bearerToken: b.token))
        }
        await assertRPCError(.permissionDenied, "another application") {
            try await h.categories.deleteCategory(delete, caller: Caller(bearerToken: b.token))
        }
        // And A's own token works for each, in an order that leaves every call valid.
        let caller = Caller(bearerToken: a.token, applicationCode: a.code)
        for (name, call) in calls {
            do { try await call(caller) } catch { XCTFail("\(name) with A's token: \(error)") }
        }
    }

    func testRotatedTokenStopsWorkingAtOnce() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        var rotate = UpdateApplicationRequest()
        rotate.application = app.code
        rotate.rotateAccessToken = true
        let response = try await h.admin.updateApplication(rotate, caller: Harness.adminCaller)
        XCTAssertEqual(response.accessToken.count, 64)
        XCTAssertNotEqual(response.accessToken, app.token)
        await assertRPCError(.unauthenticated) {
            try await h.categories.listCategories(ListCategoriesRequest(), caller: Caller(bearerToken: app.token))
        }
        _ = try await h.categories.listCategories(ListCategoriesRequest(), caller: Caller(bearerToken: response.accessToken))
    }

    func testDeviceMethodsAnswerNotFoundForUnknownApplications() async throws {
        let h = try await Harness()
        let code = "ZZZZZ-99999"
        var unregister = UnregisterDeviceRequest()
        unregister.application = code
        unregister.hwid = "d"
        var setTags = SetTagsRequest()
        setTags.application = code
        setTags.hwid = "d"
        var getTags = GetTagsRequest()
        getTags.application = code
        getTags.hwid = "d"
        var sync = SyncCategoriesRequest()
        sync.application = code
        await assertRPCError(.notFound, code) { try await h.devices.registerDevice(registration(code, "d")) }
        await assertRPCError(.notFound, code) { try await h.devices.unregisterDevice(unregister) }
        await assertRPCError(.notFound, code) { try await h.devices.setTags(setTags) }
        await assertRPCError(.notFound, code) { try await h.devices.getTags(getTags) }
        await assertRPCError(.notFound, code) { try await h.devices.syncCategories(sync) }
        var update = UpdateApplicationRequest()
        update.application = code
        await assertRPCError(.notFound, code) { try await h.admin.updateApplication(update, caller: Harness.adminCaller) }
    }
}
