import Foundation
import PushwireRuntime
import PushwireWire
import XCTest
import PushwireService

/// The services registered on the real RPC server, called over a TCP socket.
final class ServerIntegrationTests: XCTestCase {
    func testServicesOverRealSockets() async throws {
        let dir = NSTemporaryDirectory() + "pushwire-server-\(getpid())-\(UUID().uuidString.prefix(8))"
        let services = try await makePushwireServices(dataDirectory: dir, adminToken: "root")
        defer { services.close() }
        let server = Server(configuration: ServerConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"), threads: 1),
                            logger: Logger(label: "test", level: .warning))
        services.register(on: server)
        let address = try server.start()
        defer {
            server.shutdownNow()
            server.waitUntilStopped()
        }
        let client = try RawClient(port: UInt16(address.port))

        var create = CreateApplicationRequest()
        create.name = "over tcp"
        let created = try client.call(Methods.Admin.createApplication, create, token: "root", callID: 1)
        let code = try XCTUnwrap(created.application?.code)

        var register = RegisterDeviceRequest()
        register.application = code
        register.hwid = "d1"
        register.pushToken = "abcd"
        register.deviceType = .ios
        let registered = try client.call(Methods.Devices.registerDevice, register, callID: 2)
        XCTAssertEqual(registered.iosCategories.map(\.name), ["YesNo"])
        register.knownCategoriesVersion = registered.categoriesVersion
        XCTAssertTrue(try client.call(Methods.Devices.registerDevice, register, callID: 3).categoriesNotModified)

        var sync = SyncCategoriesRequest()
        sync.application = code
        sync.knownVersion = 1
        XCTAssertTrue(try client.call(Methods.Devices.syncCategories, sync, callID: 4).notModified)

        var get = GetTagsRequest()
        get.application = code
        get.hwid = "d1"
        XCTAssertEqual(try client.call(Methods.Devices.getTags, get, callID: 5).tags, [])

        XCTAssertThrowsError(try client.call(Methods.Categories.listCategories, ListCategoriesRequest(), callID: 6)) { error in
            XCTAssertEqual((error as? RPCError)?.code, .unauthenticated)
        }
        let list = try client.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: created.accessToken, callID: 7)
        XCTAssertEqual(list.categoriesVersion, 1)
        register.deviceType = .unspecified
        XCTAssertThrowsError(try client.call(Methods.Devices.registerDevice, register, callID: 8)) { error in
            XCTAssertEqual((error as? RPCError)?.code, .invalidArgument)
        }
    }
}
