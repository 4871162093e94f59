import PushwireWire
import XCTest
@testable import PushwireService

final class CategoriesTests: XCTestCase {
    func testVersionsBumpAndSyncFollows() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        let caller = Caller(bearerToken: app.token)
        var sync = SyncCategoriesRequest()
        sync.application = app.code
        let initial = try await h.devices.syncCategories(sync)
        XCTAssertFalse(initial.notModified)
        XCTAssertEqual(initial.version, 1)
        XCTAssertEqual(initial.categories.map(\.name), ["YesNo"])

        sync.knownVersion = 1
        let writes = h.store.statistics.writes
        await asyncAssertEqual(try await h.devices.syncCategories(sync), { var r = SyncCategoriesResponse(); r.notModified = true; r.version = 1; return r }())

        var start = makeButton(0, "Open")
        start.startApplication = true
        var reply = makeButton(1, "Reply")
        reply.behavior = .textInput
        reply.textInputButtonTitle = "Send"
        reply.textInputPlaceholder = "Your answer"
        var french = LocalizedText()
        french.language = "fr"
        french.text = "Répondre"
        reply.localizedLabels = [french]
        let created = try await h.categories.upsertCategory(upsertRequest(makeCategory("Reply", buttons: [start, reply])), caller: caller)
        XCTAssertEqual(created.categoriesVersion, 2)
        let stored = try XCTUnwrap(created.category)
        XCTAssertNotEqual(stored.categoryID, 0)
        XCTAssertTrue(stored.buttons[0].authenticationRequired, "start_application implies authentication_required")
        XCTAssertEqual(stored.buttons[1].localizedLabels, [french])
        XCTAssertEqual(h.store.statistics.writes, writes + 1)

        let stale = try await h.devices.syncCategories(sync)
        XCTAssertFalse(stale.notModified)
        XCTAssertEqual(stale.version, 2)
        XCTAssertEqual(stale.categories.map(\.name), ["YesNo", "Reply"])
        XCTAssertEqual(stale.categories.last, stored)

        var renamed = stored
        renamed.name = "Answer"
        let replaced = try await h.categories.upsertCategory(upsertRequest(renamed), caller: caller)
        XCTAssertEqual(replaced.categoriesVersion, 3)
        var delete = DeleteCategoryRequest()
        delete.categoryID = stored.categoryID
        let deleted = try await h.categories.deleteCategory(delete, caller: caller)
        XCTAssertEqual(deleted.categoriesVersion, 4)
        let list = try await h.categories.listCategories(ListCategoriesRequest(), caller: caller)
        XCTAssertEqual(list.categoriesVersion, 4)
        XCTAssertEqual(list.categories.map(\.name), ["YesNo"])
        await assertRPCError(.notFound) { try await h.categories.deleteCategory(delete, caller: caller) }

        var register = registration(app.code, "d")
        register.knownCategoriesVersion = 2
        let registered = try await h.devices.registerDevice(register)
        XCTAssertFalse(registered.categoriesNotModified)
        XCTAssertEqual(registered.categoriesVersion, 4)

        // Survives a restart with the same version.
        h.store.close()
        let again = try await Harness(directory: h.directory)
        sync.knownVersion = 4
        await asyncAssertTrue(try await again.devices.syncCategories(sync).notModified)
        again.store.close()
    }

    func testAppleRules() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        let caller = Caller(bearerToken: app.token)
        func check(_ containing: String, _ category: Category) async {
            await assertRPCError(.invalidArgument, containing) { try await h.categories.upsertCategory(upsertRequest(category), caller: caller) }
        }
        await assertRPCError(.invalidArgument, "category is missing") {
            try await h.categories.upsertCategory(UpsertCategoryRequest(), caller: caller)
        }
        await check("name is empty", makeCategory("", buttons: [makeButton(0, "a")]))
        await check("longer than 64", makeCategory(String(repeating: "n", count: 65), buttons: [makeButton(0, "a")]))
        await check("1 to 4 buttons", makeCategory("none", buttons: []))
        await check("1 to 4 buttons", makeCategory("five", buttons: (0..<5).map { makeButton($0, "b\($0)") }))
        await check("appears twice", makeCategory("dup", buttons: [makeButton(0, "a"), makeButton(0, "b")]))
        await check("is empty", makeCategory("label", buttons: [makeButton(0, "")]))
        await check("longer than 64", makeCategory("long", buttons: [makeButton(0, String(repeating: "l", count: 65))]))
        var input = makeButton(0, "Reply")
        input.behavior = .textInput
        input.textInputButtonTitle = "Send"
        await check("text_input_placeholder", makeCategory("input", buttons: [input]))
        var localized = makeButton(0, "Yes")
        var text = LocalizedText()
        text.language = "xx"
        text.text = "Oui"
        localized.localizedLabels = [text]
        await check("ISO-639-1", makeCategory("lang", buttons: [localized]))
        text.language = "fr"
        text.text = ""
        localized.localizedLabels = [text]
        await check("is empty", makeCategory("lang", buttons: [localized]))
        var unknown = makeButton(0, "?")
        unknown.behavior = .unrecognized(9)
        await check("behavior", makeCategory("behavior", buttons: [unknown]))
        await assertRPCError(.alreadyExists) {
            try await h.categories.upsertCategory(upsertRequest(makeCategory("YesNo", buttons: [makeButton(0, "a")])), caller: caller)
        }
        await assertRPCError(.notFound) {
            try await h.categories.upsertCategory(upsertRequest(makeCategory("Ghost", id: 999_999, buttons: [makeButton(0, "a")])), caller: caller)
        }
        // Nothing of that changed the version.
        await asyncAssertEqual(try await h.categories.listCategories(ListCategoriesRequest(), caller: caller).categoriesVersion, 1)
    }
}
