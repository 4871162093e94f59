import Foundation
import PushwireWire
import XCTest

/// Issue 6, item 8: `kill -9` of pushwired in the middle of a fan-out to the file sink; after the
/// restart every target is accounted for and none received the message twice. The in-process
/// variants are in MessagesDurabilityTests.
final class MessagesCrashTests: XCTestCase {
    func testKill9DuringFanOut() async throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let dataDirectory = NSTemporaryDirectory() + "pushwire-msg-crash-\(getpid())-\(UUID().uuidString.prefix(8))"
        let sinkPath = (dataDirectory as NSString).appendingPathComponent("sink.jsonl")
        var (server, port) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let client = try RawClient(port: port)
        let created = try CrashRecoveryTests.createApplication(named: "fanout-crash", through: client)
        let code = try XCTUnwrap(created.application?.code)

        // 30,000 devices, 64 registrations in flight.
        let total: UInt32 = 30_000
        try registerDevices(Int(total), application: code, through: client)
        var message = CreateMessageRequest()
        var notification = Notification()
        notification.content = "crash"
        message.notifications = [notification]
        let messageCode = try XCTUnwrap(try client.call(Methods.Messages.createMessage, message, token: created.accessToken, callID: total + 1).messageCodes.first)

        // Kill once part of the fan-out reached the sink.
        let deadline = Date().addingTimeInterval(30)
        var linesAtKill = 0
        while Date() < deadline {
            linesAtKill = lineCount(sinkPath)
            if linesAtKill >= 2000 { break }
            usleep(500)
        }
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        print("messages crash test: killed with \(linesAtKill) of \(total) lines in the sink")

        (server, port) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory)
        let reader = try RawClient(port: port)
        var details = GetMessageDetailsResponse()
        var request = GetMessageDetailsRequest()
        request.messageCode = messageCode
        for attempt in 0..<600 {
            details = try reader.call(Methods.Messages.getMessageDetails, request, token: created.accessToken, callID: UInt32(attempt + 1))
            if details.status == .done { break }
            usleep(50_000)
        }
        XCTAssertEqual(details.status, .done)
        XCTAssertEqual(details.targeted, UInt64(total))
        XCTAssertEqual(details.sent + details.failed, UInt64(total))
        let tokens = try String(contentsOfFile: sinkPath, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: #""token":""#) else { return nil }
            return String(line[range.upperBound...].prefix(64))
        }
        XCTAssertEqual(tokens.count, Set(tokens).count, "no device received the message twice")
        let interrupted = details.failures.first { $0.reason == "Interrupted" }?.count ?? 0
        XCTAssertGreaterThanOrEqual(UInt64(tokens.count) + interrupted, UInt64(total), "every target delivered or accounted as Interrupted")
        server.terminate()
        server.waitUntilExit()
    }

    private func lineCount(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return data.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }
}
