import Foundation
import PushwireWire
import XCTest

/// Issue 6, item 4, through real processes: a message scheduled a few seconds ahead survives a
/// stop of pushwired (`kill -9` or SIGTERM) before its time and lands in the file sink on time,
/// exactly once; a DeleteMessage acknowledged before the stop stays in force after the restart.
/// The in-process variants are in MessagesDurabilityTests.
final class MessagesSchedulingRestartTests: XCTestCase {
    /// How early a notification may reach the sink: the server and the test read the same clock,
    /// so only the rounding of milliseconds.
    private static let earlyToleranceMS: Int64 = 20
    /// How late it may be: the scheduler sleeps until the send time, but the machine is shared.
    private static let lateToleranceMS: Int64 = 4000

    func testScheduledMessageGoesOutOnceAfterKill9() throws {
        try checkScheduledMessageSurvives(stop: SIGKILL)
    }

    func testScheduledMessageGoesOutOnceAfterSIGTERM() throws {
        try checkScheduledMessageSurvives(stop: SIGTERM)
    }

    func testDeletedScheduledMessageStaysCancelledAfterRestart() throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        var server = try Running(path: path, dataDirectory: Self.temporaryDirectory("delete"))
        defer { server.kill() }
        let app = try server.createApplication(devices: ["hw-a", "hw-b"])

        let sendAt = Self.nowMS() + 2500
        let deleted = try server.create(content: "deleted", devices: ["hw-a", "hw-b"], sendAtMS: sendAt, app: app)
        // A control message at the same time proves the restarted scheduler did run.
        let kept = try server.create(content: "kept", devices: ["hw-a"], sendAtMS: sendAt, app: app)
        var delete = DeleteMessageRequest()
        delete.messageCode = deleted
        _ = try server.client.call(Methods.Messages.deleteMessage, delete, token: app.token, callID: server.nextCallID())
        server.kill()
        XCTAssertTrue(server.sinkLines(code: deleted).isEmpty)

        server = try Running(path: path, dataDirectory: server.dataDirectory)
        let landed = server.waitForLines(code: kept, count: 1, until: sendAt + Self.lateToleranceMS)
        XCTAssertEqual(landed.count, 1, "the control message went out")
        // The scheduler has passed the deleted one's send time: the control message due with it
        // is done, and a message created after it went out too.
        XCTAssertTrue(try waitUntil(timeout: 20) { try server.details(kept, app: app).status == .done }, "the control message is not done")
        let probe = try server.create(content: "probe", devices: ["hw-b"], sendAtMS: 0, app: app)
        XCTAssertEqual(server.waitForLines(code: probe, count: 1, until: Self.nowMS() + Self.lateToleranceMS).count, 1)
        XCTAssertTrue(server.sinkLines(code: deleted).isEmpty, "a deleted message is never sent, even after a restart")
        XCTAssertEqual(try server.details(deleted, app: app).status, .cancelled)
        XCTAssertEqual(try server.details(deleted, app: app).targeted, 0)
        XCTAssertEqual(try server.details(kept, app: app).status, .done)
        server.stop()
    }

    private func checkScheduledMessageSurvives(stop signal: Int32) throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        var server = try Running(path: path, dataDirectory: Self.temporaryDirectory(signal == SIGKILL ? "kill" : "term"))
        defer { server.kill() }
        let devices = ["hw-1", "hw-2", "hw-3"]
        let app = try server.createApplication(devices: devices)

        let sendAt = Self.nowMS() + 3000
        let code = try server.create(content: "later", devices: devices, sendAtMS: sendAt, app: app)
        XCTAssertEqual(try server.details(code, app: app).status, .scheduled)
        if signal == SIGKILL { server.kill() } else { server.stop() }
        XCTAssertLessThan(Self.nowMS(), sendAt, "the server stopped before the send time (the machine was too slow to test this)")
        XCTAssertTrue(server.sinkLines(code: code).isEmpty, "nothing was sent before the stop")

        server = try Running(path: path, dataDirectory: server.dataDirectory)
        let lines = server.waitForLines(code: code, count: devices.count, until: sendAt + Self.lateToleranceMS)
        let landedAt = Self.nowMS()
        XCTAssertEqual(lines.count, devices.count, "every device got the scheduled message after the restart")
        XCTAssertGreaterThanOrEqual(landedAt, sendAt - Self.earlyToleranceMS, "not before its send time")
        XCTAssertLessThanOrEqual(landedAt, sendAt + Self.lateToleranceMS, "on time")

        // Exactly once: nothing more arrives once every outcome is recorded (done), and each
        // device's token appears once.
        XCTAssertTrue(try waitUntil(timeout: 20) { try server.details(code, app: app).status == .done }, "the message is not done")
        let final = server.sinkLines(code: code)
        XCTAssertEqual(final.count, devices.count)
        XCTAssertEqual(Set(final.map(\.token)), Set(devices.map(Self.token)))
        let details = try server.details(code, app: app)
        XCTAssertEqual(details.status, .done)
        XCTAssertEqual(details.targeted, UInt64(devices.count))
        XCTAssertEqual(details.sent, UInt64(devices.count))
        server.stop()
    }

    static func nowMS() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    static func token(_ hwid: String) -> String { hwid.utf8.map { String(format: "%02x", $0) }.joined() }

    static func temporaryDirectory(_ name: String) -> String {
        NSTemporaryDirectory() + "pushwire-msg-schedule-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
    }

    /// A pushwired subprocess with a connection to it; its file sink is `<data-dir>/sink.jsonl`.
    private struct Running {
        let process: Process
        let client: RawClient
        let dataDirectory: String
        private var callID: UInt32 = 0

        init(path: String, dataDirectory: String) throws {
            let (process, port) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory)
            self.process = process
            self.dataDirectory = dataDirectory
            do {
                client = try RawClient(port: port)
            } catch {
                killAndWait(process)
                throw error
            }
        }

        mutating func nextCallID() -> UInt32 {
            callID += 1
            return callID
        }

        struct App {
            var code: String
            var token: String
        }

        /// Creates an application and registers `devices` (iOS, token = hex of the hwid).
        mutating func createApplication(devices: [String]) throws -> App {
            var create = CreateApplicationRequest()
            create.name = "scheduled"
            let created = try client.call(Methods.Admin.createApplication, create, token: "crash-admin", callID: nextCallID())
            let app = App(code: try XCTUnwrap(created.application?.code), token: created.accessToken)
            for hwid in devices {
                var request = RegisterDeviceRequest()
                request.application = app.code
                request.hwid = hwid
                request.pushToken = MessagesSchedulingRestartTests.token(hwid)
                request.deviceType = .ios
                request.language = "en"
                _ = try client.call(Methods.Devices.registerDevice, request, callID: nextCallID())
            }
            return app
        }

        /// Creates one notification; returns its code.
        mutating func create(content: String, devices: [String], sendAtMS: Int64, app: App) throws -> String {
            var notification = note(content, devices: devices)
            notification.sendAtMS = sendAtMS
            var request = CreateMessageRequest()
            request.notifications = [notification]
            let response = try client.call(Methods.Messages.createMessage, request, token: app.token, callID: nextCallID())
            XCTAssertEqual(response.unknownDevices, [])
            return try XCTUnwrap(response.messageCodes.first)
        }

        mutating func details(_ code: String, app: App) throws -> GetMessageDetailsResponse {
            var request = GetMessageDetailsRequest()
            request.messageCode = code
            return try client.call(Methods.Messages.getMessageDetails, request, token: app.token, callID: nextCallID())
        }

        /// The sink's lines for one message.
        func sinkLines(code: String) -> [SinkLine] {
            let path = (dataDirectory as NSString).appendingPathComponent("sink.jsonl")
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { try? SinkLine(String($0)) }
                .filter { $0.messageCode == code }
        }

        /// Polls the sink every 10 ms until `count` lines of the message are there or the clock
        /// passes `deadlineMS`.
        func waitForLines(code: String, count: Int, until deadlineMS: Int64) -> [SinkLine] {
            var lines = sinkLines(code: code)
            while lines.count < count, MessagesSchedulingRestartTests.nowMS() < deadlineMS {
                usleep(10_000)
                lines = sinkLines(code: code)
            }
            return lines
        }

        /// `kill -9`, waited for.
        func kill() { killAndWait(process) }

        /// SIGTERM (a graceful drain), waited for.
        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// `kill -9` of a child, waited for (a free function: `Running.kill()` shadows the C call).
private func killAndWait(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
}
