import Foundation
import PushwireAPNs
import PushwireDelivery
import PushwireSQLiteStore
import PushwireSQLiteStore
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

let testAdminToken = "admin-secret"

/// Opens SQLite in `dataDirectory` and builds the services over it with the file sink and the
/// APNs and FCM gateways, as `pushwired` does (`Sources/Pushwired/Gateways.swift`).
func makePushwireServices(dataDirectory: String, adminToken: String, sinkPath: String? = nil) async throws -> PushwireServices {
    // The store first: it creates the data directory the default sink is in.
    let store = try SQLiteStore(dataDirectory: dataDirectory)
    let path = sinkPath ?? dataDirectory + "/" + MessagesService.defaultSinkFileName
    let sink: any NotificationGateway
    do {
        sink = path == MessagesService.discardingSinkPath ? NullGateway() : try FileSinkGateway(path: path)
    } catch {
        store.close()
        throw error
    }
    let gateways = DeliveryGateways(sink: sink, makeAPNs: { settings in
        guard let credentials = try? APNsCredentials(
            teamID: settings.teamID, keyID: settings.keyID, topic: settings.topic, p8PEM: settings.privateKeyP8,
            environment: settings.environment == 2 ? .production : .sandbox) else { return nil }
        return try? APNsGateway(credentials: credentials, configuration: APNsConfiguration())
    }, makeFCM: { json in
        guard let account = try? FCMServiceAccount(json: json) else { return nil }
        return try? FCMGateway(account: account, configuration: APNsConfiguration())
    })
    return try await PushwireServices(store: store, adminToken: adminToken, gateways: gateways)
}

/// A registry over a fresh SQLite store, with the three services.
struct Harness {
    let directory: String
    let store: SQLiteStore
    let registry: Registry
    var admin: AdminService { AdminService(registry: registry) }
    var devices: DevicesService { DevicesService(registry: registry) }
    var categories: CategoriesService { CategoriesService(registry: registry) }

    init(directory: String? = nil) async throws {
        let dir = directory ?? (NSTemporaryDirectory() + "pushwire-service-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        self.directory = dir
        self.store = try SQLiteStore(dataDirectory: dir)
        self.registry = try await Registry(store: store, adminToken: testAdminToken)
    }

    static let adminCaller = Caller(bearerToken: testAdminToken)

    /// Creates an application; returns its code and access token.
    func createApplication(_ name: String = "app") async throws -> (code: String, token: String) {
        var request = CreateApplicationRequest()
        request.name = name
        let response = try await admin.createApplication(request, caller: Harness.adminCaller)
        return (response.application?.code ?? "", response.accessToken)
    }
}

func registration(_ application: String, _ hwid: String, token: String = "0a1b2c3d", language: String = "en") -> RegisterDeviceRequest {
    var request = RegisterDeviceRequest()
    request.application = application
    request.hwid = hwid
    request.pushToken = token
    request.deviceType = .ios
    request.language = language
    request.timezone = 3600
    return request
}

func tagValue(_ kind: TagValue.Kind) -> TagValue {
    var value = TagValue()
    value.kind = kind
    return value
}

func makeTag(_ name: String, _ kind: TagValue.Kind) -> Tag {
    var tag = Tag()
    tag.name = name
    tag.value = tagValue(kind)
    return tag
}

func makeButton(_ id: UInt32, _ label: String) -> Button {
    var button = Button()
    button.id = id
    button.label = label
    return button
}

func makeCategory(_ name: String, id: UInt32 = 0, buttons: [Button]) -> Category {
    var category = Category()
    category.categoryID = id
    category.name = name
    category.buttons = buttons
    return category
}

func upsertRequest(_ category: Category) -> UpsertCategoryRequest {
    var request = UpsertCategoryRequest()
    request.category = category
    return request
}

/// Asserts that `body` fails with `code`, and that the message contains `containing`.
func assertRPCError<T>(_ code: StatusCode, _ containing: String = "", file: StaticString = #filePath, line: UInt = #line,
                       _ body: () async throws -> T) async {
    do {
        _ = try await body()
        XCTFail("expected \(code.name)", file: file, line: line)
    } catch let error as RPCError {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        if !containing.isEmpty {
            XCTAssertTrue(error.message.contains(containing), "\(error.message) does not contain \(containing)", file: file, line: line)
        }
    } catch {
        XCTFail("unexpected \(error)", file: file, line: line)
    }
}
