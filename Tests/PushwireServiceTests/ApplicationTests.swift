import PushwireWire
import XCTest
@testable import PushwireService

final class ApplicationTests: XCTestCase {
    /// A throw-away P-256 key (PKCS#8), made for these tests only.
    static let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgdTDuOO31li8iJBgb\nYRWtnjcr9qfA3aPicr0AqsfW/lGhRANCAAQOwC8tjcfTauZVhGggHvSfUv7gZCix\n0a6T8ZCYId6nTyBgl1s6spR9hjFHI9x2tGzSRaXNiyxWkojvHlYZAZnV\n-----END PRIVATE KEY-----\n"

    func apns(key: String = ApplicationTests.pem) -> ApnsSettings {
        var settings = ApnsSettings()
        settings.teamID = "ABCDE12345"
        settings.keyID = "KEY0123456"
        settings.topic = "com.example.app"
        settings.privateKeyP8 = key
        settings.environment = .sandbox
        return settings
    }

    func testCreateShowsTheTokenOnceAndNeverTheKey() async throws {
        let h = try await Harness()
        var create = CreateApplicationRequest()
        create.name = "Shop"
        create.apns = apns()
        let created = try await h.admin.createApplication(create, caller: Harness.adminCaller)
        let application = try XCTUnwrap(created.application)
        XCTAssertTrue(application.code.wholeMatch(of: /[A-Z0-9]{5}-[A-Z0-9]{5}/) != nil, application.code)
        XCTAssertEqual(created.accessToken.count, 64)
        XCTAssertTrue(application.hasApnsKey)
        XCTAssertEqual(application.apns?.privateKeyP8, "")
        XCTAssertEqual(application.apns?.topic, "com.example.app")
        XCTAssertEqual(application.categoriesVersion, 1)

        let listed = try h.admin.listApplications(ListApplicationsRequest(), caller: Harness.adminCaller)
        XCTAssertEqual(listed.applications, [application])
        // Only the hash is stored.
        let stored = try await h.store.listApplications()
        XCTAssertEqual(stored.first?.accessTokenHash, SHA256.hash(created.accessToken))

        // Updating the topic without resending the key keeps the key.
        var update = UpdateApplicationRequest()
        update.application = application.code
        var settings = apns(key: "")
        settings.topic = "com.example.other"
        update.apns = settings
        let updated = try await h.admin.updateApplication(update, caller: Harness.adminCaller)
        XCTAssertEqual(updated.application?.apns?.topic, "com.example.other")
        XCTAssertEqual(updated.application?.hasApnsKey, true)
        XCTAssertEqual(updated.accessToken, "")
        await asyncAssertEqual(try await h.store.listApplications().first?.apns?.privateKeyP8, ApplicationTests.pem)

        var clear = UpdateApplicationRequest()
        clear.application = application.code
        clear.clearApns = true
        let cleared = try await h.admin.updateApplication(clear, caller: Harness.adminCaller)
        XCTAssertNil(cleared.application?.apns)
        XCTAssertEqual(cleared.application?.hasApnsKey, false)
    }

    func testApplicationValidation() async throws {
        let h = try await Harness()
        var create = CreateApplicationRequest()
        await assertRPCError(.invalidArgument, "name is empty") { try await h.admin.createApplication(create, caller: Harness.adminCaller) }
        create.name = String(repeating: "n", count: 129)
        await assertRPCError(.invalidArgument, "128") { try await h.admin.createApplication(create, caller: Harness.adminCaller) }
        create.name = "ok"
        var bad = apns()
        bad.teamID = "short"
        create.apns = bad
        await assertRPCError(.invalidArgument, "team_id") { try await h.admin.createApplication(create, caller: Harness.adminCaller) }
        bad = apns(key: "not a key")
        create.apns = bad
        await assertRPCError(.invalidArgument, "private_key_p8") { try await h.admin.createApplication(create, caller: Harness.adminCaller) }
        // PEM-shaped but not a P-256 key: refused when the app is created, not at send time.
        bad = apns(key: "-----BEGIN PRIVATE KEY-----\nMIGTAgEA\n-----END PRIVATE KEY-----\n")
        create.apns = bad
        await assertRPCError(.invalidArgument, "private_key_p8") { try await h.admin.createApplication(create, caller: Harness.adminCaller) }
        bad = apns()
        bad.environment = .unspecified
        create.apns = bad
        await assertRPCError(.invalidArgument, "environment") { try await h.admin.createApplication(create, caller: Harness.adminCaller) }
    }

    func testApplicationsSurviveARestart() async throws {
        let h = try await Harness()
        let app = try await h.createApplication("persisted")
        h.store.close()
        let again = try await Harness(directory: h.directory)
        let list = try await again.categories.listCategories(ListCategoriesRequest(), caller: Caller(bearerToken: app.token))
        XCTAssertEqual(list.categories.map(\.name), ["YesNo"])
        again.store.close()
    }
}
