import XCTest
import Foundation
import Synchronization
import PushwireWire
@testable import PushwireClient

/// The group commands through the built `pushwire` binary: exit codes, output, and the demo
/// against a scripted fake server.
final class CLIGroupCommandTests: XCTestCase {
    /// How a `pushwire` run ended (the tests' one `ExecutableRun`).
    typealias Run = ExecutableRun

    /// Runs the built `pushwire` with `arguments` to its end.
    static func run(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws -> Run {
        try runExecutable("pushwire", arguments, environment: environment, directory: directory)
    }

    func testHelpExitsZero() throws {
        for arguments in [["app", "--help"], ["app", "create", "--help"], ["device", "tags", "-h"], ["help", "category", "upsert"],
                          ["message", "send", "--help"], ["demo", "--help"], ["category", "sync", "--help"]] {
            let result = try Self.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("USAGE: pushwire \(arguments.filter { !$0.hasPrefix("-") && $0 != "help" }.joined(separator: " "))"), "\(arguments)")
        }
        XCTAssertTrue(try Self.run(["--help"]).stdout.contains("demo      the tour"))
    }

    func testUsageErrorsExit64() throws {
        let environment = ["PUSHWIRE_TOKEN": "t"]
        for arguments in [["app"], ["app", "frob"], ["app", "create"], ["app", "create", "--name", "x", "--bogus"],
                          ["device", "register", "--app", "A"], ["device", "tags", "--app", "A", "--hwid", "h", "--set", "x"],
                          ["category", "upsert", "--name", "N", "--button", "Yes:sideways"], ["category", "delete"],
                          ["message", "send"], ["message", "send", "--content", "x", "--data", "{"], ["message", "details"],
                          ["demo", "extra"]] {
            let result = try Self.run(arguments, environment: environment)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
        }
        // No admin token anywhere (and no ./data/admin-token in the working directory): a usage error.
        let noAdmin = try Self.run(["app", "list", "--server", "127.0.0.1:1"], directory: FileManager.default.temporaryDirectory)
        XCTAssertEqual(noAdmin.status, 64)
        XCTAssertTrue(noAdmin.stderr.contains("needs the admin token"), noAdmin.stderr)
    }

    func testAppCreateAgainstFakeServer() throws {
        var response = CreateApplicationResponse()
        var application = Application()
        application.code = "A1B2C-3D4E5"
        application.name = "Shop"
        response.application = application
        response.accessToken = "secret-token"
        let body = response.encode()
        let server = try FakeServer { peer, request in
            guard request.metadata["authorization"] == "Bearer adm" else {
                return peer.respond(request.callID, code: .unauthenticated, message: "admin token required")
            }
            peer.respond(request.callID, body: body)
        }
        defer { server.stop() }
        let human = try Self.run(["app", "create", "--name", "Shop", "--server", server.address], environment: ["PUSHWIRE_ADMIN_TOKEN": "adm"])
        XCTAssertEqual(human.status, 0, human.stderr)
        XCTAssertTrue(human.stdout.contains("created application A1B2C-3D4E5 (Shop)"), human.stdout)
        XCTAssertTrue(human.stdout.contains("access token: secret-token"), human.stdout)
        XCTAssertTrue(human.stdout.contains("shown only once"), human.stdout)
        let sent = try CreateApplicationRequest(decoding: try XCTUnwrap(server.requests.first).message)
        XCTAssertEqual(sent.name, "Shop")
        XCTAssertEqual(server.requests.first?.method, "/pushwire.v1.Admin/CreateApplication")

        let json = try Self.run(["app", "create", "--name", "Shop", "--server", server.address, "--admin-token", "adm", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(try ProtoJSON.parse(json.stdout), try ProtoJSON.decode(body, as: CreateApplicationResponse.descriptor, emitDefaults: true))
        XCTAssertTrue(json.stdout.contains(#""categoriesVersion":"0""#), "zeros are printed: \(json.stdout)")

        let denied = try Self.run(["app", "create", "--name", "Shop", "--server", server.address, "--admin-token", "wrong"])
        XCTAssertEqual(denied.status, 1)
        XCTAssertEqual(denied.stderr, "UNAUTHENTICATED: admin token required\n")
    }

    func testUnimplementedMethodIsAClearError() throws {
        let server = try FakeServer { peer, request in
            peer.respond(request.callID, code: .unimplemented, message: "unknown method \(request.method)")
        }
        defer { server.stop() }
        let result = try Self.run(["message", "details", "M-1", "--token", "t", "--server", server.address])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "UNIMPLEMENTED: unknown method /pushwire.v1.Messages/GetMessageDetails; this server does not offer /pushwire.v1.Messages/GetMessageDetails\n")
        let json = try Self.run(["category", "sync", "--app", "A", "--server", server.address, "--json"])
        XCTAssertEqual(json.status, 1)
        guard case .object(let members) = try ProtoJSON.parse(json.stdout), case .object(let error)? = members.first?.value else {
            return XCTFail(json.stdout)
        }
        XCTAssertEqual(error.first { $0.key == "status" }?.value, .string("UNIMPLEMENTED"))
    }

    func testMessageSendResolvesACategoryName() throws {
        let script = DemoScript()
        let server = try FakeServer { peer, request in
            let (code, message, body) = script.answer(request)
            peer.respond(request.callID, code: code, message: message, body: body)
        }
        defer { server.stop() }
        let sent = try Self.run(["message", "send", "--content", "Hi", "--category", "YesNo", "--device", "h1", "--server", server.address],
                                environment: ["PUSHWIRE_TOKEN": "app-token"])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        XCTAssertEqual(sent.stdout, "message M-1\n")
        let create = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(create.method, "/pushwire.v1.Messages/CreateMessage")
        XCTAssertEqual(try CreateMessageRequest(decoding: create.message).notifications.first?.iosCategoryID, 65)

        let unknown = try Self.run(["message", "send", "--content", "Hi", "--category", "Rate", "--server", server.address, "--token", "app-token"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(unknown.stderr, "NOT_FOUND: no category named 'Rate'; the application has: YesNo (65)\n")
    }

    func testDemoAgainstScriptedServer() throws {
        let script = DemoScript()
        let server = try FakeServer { peer, request in
            let (code, message, body) = script.answer(request)
            peer.respond(request.callID, code: code, message: message, body: body)
        }
        defer { server.stop() }
        let result = try Self.run(["demo", "--server", server.address, "--admin-token", "adm"])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertTrue(result.stdout.contains("see the server's sink file"), result.stdout)
        XCTAssertTrue(result.stdout.contains("message M-1: done"), result.stdout)
        XCTAssertTrue(result.stdout.contains("targeted:  3"), result.stdout)
        XCTAssertTrue(result.stdout.contains("opened:    1"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Yes (button 0): 1"), result.stdout)
        XCTAssertTrue(result.stdout.contains("No (button 1): 1"), result.stdout)

        let requests = server.requests
        let create = try XCTUnwrap(requests.first { $0.method.hasSuffix("/CreateMessage") })
        XCTAssertEqual(create.metadata["authorization"], "Bearer app-token")
        let notification = try XCTUnwrap(try CreateMessageRequest(decoding: create.message).notifications.first)
        XCTAssertEqual(notification.iosCategoryID, 65)
        XCTAssertEqual(notification.targeting?.devices.count, 3)
        let registered = try requests.filter { $0.method.hasSuffix("/RegisterDevice") }.map { try RegisterDeviceRequest(decoding: $0.message) }
        XCTAssertEqual(registered.map(\.language), ["en", "fr", "de"])
        XCTAssertEqual(Set(registered.map(\.application)), ["DEMO1-23456"])
        let actions = try requests.filter { $0.method.hasSuffix("/TrackAction") }.map { try TrackActionRequest(decoding: $0.message) }
        XCTAssertEqual(actions.map(\.kind), [.button, .button, .open])
        XCTAssertEqual(actions.map(\.buttonID), [0, 1, 0])
        XCTAssertEqual(Set(actions.map(\.messageCode)), ["M-1"])
    }
}

/// A server that plays its part of `pushwire demo`: the message is "sending" on the first look
/// and "done" after, and the details count the actions reported.
private final class DemoScript: Sendable {
    private let state = Mutex<(looks: Int, opened: UInt64, taps: [UInt32: UInt64])>((0, 0, [:]))

    private static var yesNo: PushwireWire.Category {
        var category = PushwireWire.Category()
        category.categoryID = 65
        category.name = "YesNo"
        var yes = Button()
        yes.id = 0
        yes.label = "Yes"
        yes.startApplication = true
        yes.authenticationRequired = true
        var no = Button()
        no.id = 1
        no.label = "No"
        category.buttons = [yes, no]
        return category
    }

    func answer(_ request: SeenRequest) -> (StatusCode, String, [UInt8]) {
        let appToken = request.metadata["authorization"] == "Bearer app-token"
        switch request.method {
        case "/pushwire.v1.Admin/CreateApplication":
            guard request.metadata["authorization"] == "Bearer adm" else { return (.unauthenticated, "admin token", []) }
            var response = CreateApplicationResponse()
            var application = Application()
            application.code = "DEMO1-23456"
            response.application = application
            response.accessToken = "app-token"
            return (.ok, "", response.encode())
        case "/pushwire.v1.Categories/ListCategories":
            guard appToken else { return (.unauthenticated, "token", []) }
            var response = ListCategoriesResponse()
            response.categories = [Self.yesNo]
            response.categoriesVersion = 1
            return (.ok, "", response.encode())
        case "/pushwire.v1.Devices/RegisterDevice":
            var response = RegisterDeviceResponse()
            response.iosCategories = [Self.yesNo]
            response.categoriesVersion = 1
            return (.ok, "", response.encode())
        case "/pushwire.v1.Messages/CreateMessage":
            guard appToken else { return (.unauthenticated, "token", []) }
            var response = CreateMessageResponse()
            response.messageCodes = ["M-1"]
            return (.ok, "", response.encode())
        case "/pushwire.v1.Devices/TrackAction":
            guard let action = try? TrackActionRequest(decoding: request.message) else { return (.invalidArgument, "undecodable", []) }
            state.withLock { state in
                if action.kind == .open { state.opened += 1 } else { state.taps[action.buttonID, default: 0] += 1 }
            }
            var response = TrackActionResponse()
            response.recorded = true
            return (.ok, "", response.encode())
        case "/pushwire.v1.Messages/GetMessageDetails":
            guard appToken else { return (.unauthenticated, "token", []) }
            var response = GetMessageDetailsResponse()
            response.messageCode = "M-1"
            response.iosCategoryID = 65
            response.targeted = 3
            state.withLock { state in
                state.looks += 1
                response.status = state.looks == 1 ? .sending : .done
                response.sent = state.looks == 1 ? 1 : 3
                response.opened = state.opened
                response.taps = Self.yesNo.buttons.map { button in
                    var tap = ButtonTapCount()
                    tap.buttonID = button.id
                    tap.label = button.label
                    tap.count = state.taps[button.id] ?? 0
                    return tap
                }
            }
            return (.ok, "", response.encode())
        default:
            return (.unimplemented, "unknown method \(request.method)", [])
        }
    }
}
