import Foundation
import PushwireWire
import XCTest

/// pushwired started by an end-to-end test against the push-service doubles (MessagesAPNsEndToEndTests,
/// MessagesFCMEndToEndTests), with one connection for the test's calls.
struct PushDoubleServer {
    let process: Process
    let client: RawClient
    let dataDirectory: String
    var nextCallID: UInt32 = 1

    mutating func call<Request: WireMessage, Response: WireMessage>(
        _ method: MethodDescriptor<Request, Response>, _ request: Request, token: String? = nil) throws -> Response {
        nextCallID += 1
        return try client.call(method, request, token: token, callID: nextCallID)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// The calls both end-to-end suites make the same way on a `PushDoubleServer`.
extension XCTestCase {
    /// Registers devices (hwid, token, type, language), 64 calls in flight.
    func register(_ devices: [(hwid: String, token: String, type: DeviceType, language: String)], application: String,
                  on server: inout PushDoubleServer) throws {
        var next = 0, inFlight = 0, done = 0
        while done < devices.count {
            while inFlight < 64 && next < devices.count {
                var request = RegisterDeviceRequest()
                request.application = application
                request.hwid = devices[next].hwid
                request.pushToken = devices[next].token
                request.deviceType = devices[next].type
                request.language = devices[next].language
                server.nextCallID += 1
                try server.client.sendRequest(callID: server.nextCallID, path: Methods.Devices.registerDevice.path, request)
                next += 1
                inFlight += 1
            }
            let response = try server.client.nextResponse()
            XCTAssertEqual(response.code, 0, response.message)
            inFlight -= 1
            done += 1
        }
    }

    func createMessage(_ notification: PushwireWire.Notification, _ server: inout PushDoubleServer, token: String) throws -> String {
        var request = CreateMessageRequest()
        request.notifications = [notification]
        return try XCTUnwrap(server.call(Methods.Messages.createMessage, request, token: token).messageCodes.first)
    }

    /// Polls GetMessageDetails until the message is done (or `timeout` passed).
    func details(_ code: String, _ server: inout PushDoubleServer, token: String, timeout: TimeInterval = 30) throws -> GetMessageDetailsResponse {
        var request = GetMessageDetailsRequest()
        request.messageCode = code
        let deadline = Date().addingTimeInterval(timeout)
        var details = try server.call(Methods.Messages.getMessageDetails, request, token: token)
        while details.status != .done && Date() < deadline {
            usleep(50_000)
            details = try server.call(Methods.Messages.getMessageDetails, request, token: token)
        }
        XCTAssertEqual(details.status, .done, "message \(code) did not finish in \(timeout) s")
        return details
    }

    /// The failures of a message by reason.
    func failures(_ details: GetMessageDetailsResponse) -> [String: UInt64] {
        Dictionary(details.failures.map { ($0.reason, $0.count) }, uniquingKeysWith: +)
    }

    /// A fresh path under the temporary directory, unique to this process and call.
    static func temporaryPath(_ prefix: String) -> String {
        NSTemporaryDirectory() + "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))"
    }
}
