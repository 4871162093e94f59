import Foundation
import PushwireWire
import XCTest

/// Issue 5, item 6: acknowledged registrations and category changes survive `kill -9` of a
/// pushwired loaded with concurrent writes.
final class CrashRecoveryTests: XCTestCase {
    /// pushwired: `$PUSHWIRED`, or the one built next to this test bundle (`pushwiredExecutable`).
    static func pushwiredPath() -> String? {
        (try? pushwiredExecutable())?.path
    }

    /// Starts pushwired on a free port; returns the process and the port.
    /// - Parameters:
    ///   - adminToken: the server's admin token.
    ///   - extraArguments: more pushwired options (an APNs endpoint, a sink).
    ///   - skipIfSilent: skip (rather than fail) when this pushwired does not start a server, as
    ///     a pushwired built without its services would not.
    static func startServer(
        _ path: String, dataDirectory: String, adminToken: String = "crash-admin", extraArguments: [String] = [],
        skipIfSilent: Bool = false
    ) throws -> (Process, UInt16) {
        let arguments = ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", adminToken, "--log-level", "error"]
        do {
            let launched = try PushwiredProcess.launch(executable: URL(fileURLWithPath: path), arguments: arguments + extraArguments, timeout: 20)
            return (launched.process, launched.port)
        } catch let failure as PushwiredProcess.StartFailure where skipIfSilent {
            throw XCTSkip("\(path) did not start a server: \(failure.description)")
        }
    }

    /// Creates an application through `client`, with the admin token the kill -9 tests start
    /// pushwired with.
    static func createApplication(named name: String, through client: RawClient) throws -> CreateApplicationResponse {
        var create = CreateApplicationRequest()
        create.name = name
        return try client.call(Methods.Admin.createApplication, create, token: "crash-admin")
    }

    func testAcknowledgedWritesSurviveKill9() async throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let dataDirectory = NSTemporaryDirectory() + "pushwire-crash-\(getpid())-\(UUID().uuidString.prefix(8))"
        var (server, port) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let client = try RawClient(port: port)

        let created = try CrashRecoveryTests.createApplication(named: "crash", through: client)
        let code = try XCTUnwrap(created.application?.code)
        // Category upserts go round four applications, so that none passes the limit of
        // categories per application (about 60 are acknowledged or in flight by the kill).
        var tokens = [created.accessToken]
        for i in 1..<4 { tokens.append(try CrashRecoveryTests.createApplication(named: "crash \(i)", through: client).accessToken) }

        // Load: 64 calls in flight on one connection, every 8th a category upsert; kill -9 once
        // 400 calls were acknowledged, while more are in flight.
        var devices: [UInt32: String] = [:]  // call id → hwid
        var categories: [UInt32: (name: String, application: Int)] = [:]  // call id → category, application
        var acknowledgedDevices: [String] = []
        var acknowledgedCategories: [(name: String, application: Int)] = []
        var nextCallID: UInt32 = 10
        var inFlight = 0
        var killed = false
        loop: while true {
            while inFlight < 64 && nextCallID < 100_000 {
                let id = nextCallID
                nextCallID += 1
                do {
                    if id % 8 == 0 {
                        var button = Button()
                        button.label = "OK"
                        var category = Category()
                        category.name = "c\(id)"
                        category.buttons = [button]
                        var request = UpsertCategoryRequest()
                        request.category = category
                        let application = Int(id / 8) % tokens.count
                        try client.sendRequest(callID: id, path: Methods.Categories.upsertCategory.path, request, token: tokens[application])
                        categories[id] = (category.name, application)
                    } else {
                        var request = RegisterDeviceRequest()
                        request.application = code
                        request.hwid = "hw-\(id)"
                        request.pushToken = String(format: "%064x", id)
                        request.deviceType = .ios
                        var tag = Tag()
                        tag.name = "seq"
                        var value = TagValue()
                        value.kind = .intValue(Int64(id))
                        tag.value = value
                        request.tags = [tag]
                        try client.sendRequest(callID: id, path: Methods.Devices.registerDevice.path, request)
                        devices[id] = request.hwid
                    }
                    inFlight += 1
                } catch {
                    break loop  // the server is gone
                }
            }
            let response: (callID: UInt32, code: UInt32, message: String, body: [UInt8])
            do { response = try client.nextResponse() } catch { break }
            inFlight -= 1
            if response.code == 0 {
                if let hwid = devices[response.callID] { acknowledgedDevices.append(hwid) }
                if let category = categories[response.callID] { acknowledgedCategories.append(category) }
            } else {
                XCTFail("call \(response.callID) failed: \(response.code) \(response.message)")
            }
            if !killed && acknowledgedDevices.count + acknowledgedCategories.count >= 400 {
                kill(server.processIdentifier, SIGKILL)
                killed = true
            }
        }
        server.waitUntilExit()
        print("crash test: \(acknowledgedDevices.count) registrations and \(acknowledgedCategories.count) category upserts acknowledged, \(nextCallID - 10) sent, before kill -9 ended the load")
        XCTAssertTrue(killed)
        XCTAssertGreaterThanOrEqual(acknowledgedDevices.count + acknowledgedCategories.count, 400)

        (server, port) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory)
        let reader = try RawClient(port: port)
        var callID: UInt32 = 1
        for hwid in acknowledgedDevices {
            var get = GetTagsRequest()
            get.application = code
            get.hwid = hwid
            callID += 1
            let tags = try reader.call(Methods.Devices.getTags, get, callID: callID)
            XCTAssertEqual(tags.tags.first?.value?.kind, .intValue(Int64(hwid.dropFirst(3)) ?? -1), hwid)
        }
        for (application, token) in tokens.enumerated() {
            callID += 1
            let list = try reader.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: token, callID: callID)
            let stored = Set(list.categories.map(\.name))
            let acknowledged = acknowledgedCategories.filter { $0.application == application }.map(\.name)
            for name in acknowledged { XCTAssertTrue(stored.contains(name), "category \(name) was acknowledged but is lost") }
            // Every acknowledged category change bumped the version durably.
            XCTAssertGreaterThanOrEqual(list.categoriesVersion, UInt64(1 + acknowledged.count))
        }
        server.terminate()
        server.waitUntilExit()
    }
}
