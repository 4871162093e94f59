import XCTest
import Foundation
import Glibc
import PushwireSystem
import PushwireWire

/// What pushwired logs for an operator (issue 21, item 4), read from a real server's stderr: a
/// debug line per call with method, status, duration, peer and application; admin actions at
/// notice with who did them; a delivery summary per message at info; JSON lines with
/// `--log-format json`; and no secret anywhere — not the admin token, not an access token.
final class OperatorLogTests: XCTestCase {
    private struct Session {
        var code: String
        var tokens: [String]
        var message: String
    }

    /// Drives one of everything the log should show through the CLI.
    private func exercise(_ server: PushwiredProcess, adminToken: String) throws -> Session {
        let environment = ["PUSHWIRE_SERVER": server.address, "PUSHWIRE_ADMIN_TOKEN": adminToken]
        func pushwire(_ arguments: [String], token: String? = nil) throws -> String {
            let result = try runExecutable("pushwire", arguments + (token.map { ["--token", $0] } ?? []), environment: environment)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            return result.stdout
        }
        func field(_ prefix: String, _ text: String) throws -> String {
            try XCTUnwrap(text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }).map { String($0.dropFirst(prefix.count)) }, text)
        }
        let created = try pushwire(["app", "create", "--name", "Logged app"])
        let code = try XCTUnwrap(created.split(separator: " ").dropFirst(2).first.map(String.init))
        let token = try field("access token: ", created)
        _ = try pushwire(["device", "register", "--app", code, "--hwid", "h1", "--push-token", "ab12"])
        _ = try pushwire(["category", "upsert", "--name", "Rate", "--button", "Love it", "--button", "Later"], token: token)
        let sent = try field("message ", try pushwire(["message", "send", "--content", "hi", "--device", "h1"], token: token))
        let tomorrow = String(Int(Date().timeIntervalSince1970) + 86_400)
        let later = try field("message ", try pushwire(["message", "send", "--content", "later", "--send-at", tomorrow], token: token))
        _ = try pushwire(["message", "cancel", later], token: token)
        let rotated = try field("new access token: ", try pushwire(["app", "update", code, "--rotate-token"]))
        XCTAssertTrue(server.waitForLog("message delivered"), server.log())
        return Session(code: code, tokens: [token, rotated], message: sent)
    }

    func testTextLinesForAnOperatorWithoutSecrets() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwired-log")
        let adminToken = "admin-\(UUID().uuidString)"
        let server = try PushwiredProcess(dataDirectory: directory, arguments: ["--admin-token", adminToken, "--log-level", "debug"])
        defer { server.stop(); server.remove() }
        let session = try exercise(server, adminToken: adminToken)
        let log = server.log()
        let lines = log.split(separator: "\n").map(String.init)
        func line(_ parts: String...) -> String? { lines.first { line in parts.allSatisfy { line.contains($0) } } }

        // One line per call.
        let create = try XCTUnwrap(line(" debug pushwired: call ", "method=/pushwire.v1.Admin/CreateApplication", "status=OK"), log)
        XCTAssertTrue(create.contains("application=admin"), create)
        XCTAssertTrue(create.contains("peer=127.0.0.1:"), create)
        XCTAssertTrue(create.contains("duration_us="), create)
        XCTAssertNotNil(line("method=/pushwire.v1.Devices/RegisterDevice", "status=OK", "application=\(session.code)"), log)
        XCTAssertNotNil(line("method=/pushwire.v1.Messages/CreateMessage", "status=OK", "application=\(session.code)"), log)
        XCTAssertNotNil(line("method=/pushwire.v1.Messages/DeleteMessage", "status=OK", "application=\(session.code)"), log)

        // Admin actions at notice, with who did them.
        XCTAssertNotNil(line(" notice pushwired: application created ", "by=admin", "application=\(session.code)"), log)
        XCTAssertNotNil(line(" notice pushwired: category created ", "by=\(session.code)", "name=Rate"), log)
        XCTAssertNotNil(line(" notice pushwired: message cancelled ", "by=\(session.code)"), log)
        XCTAssertNotNil(line(" notice pushwired: application updated; access token rotated ", "by=admin"), log)

        // The delivery summary at info.
        XCTAssertNotNil(line(" info pushwired: message delivered ", "message_code=\(session.message)", "targeted=1", "sent=1", "failed=0"), log)

        // No secret.
        for secret in [adminToken] + session.tokens {
            XCTAssertFalse(log.contains(secret), "a token is in the log")
        }

        // Nor an APNs signing key: an application created with one logs its code, not the key.
        let keyFile = directory.deletingLastPathComponent().appendingPathComponent("\(directory.lastPathComponent).p8")
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyFile.path]
        openssl.standardError = FileHandle.nullDevice
        guard (try? openssl.run()) != nil else { return }
        openssl.waitUntilExit()
        let key = try String(contentsOf: keyFile, encoding: .utf8)
        let created = try runExecutable("pushwire", ["app", "create", "--name", "With APNs", "--apns-team-id", "TEAM123456",
                                                     "--apns-key-id", "KEY1234567", "--apns-topic", "com.example.app",
                                                     "--apns-key-file", keyFile.path, "--apns-environment", "sandbox"],
                                        environment: ["PUSHWIRE_SERVER": server.address, "PUSHWIRE_ADMIN_TOKEN": adminToken])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertTrue(server.waitForLog("name=\"With APNs\" apns=set"), server.log())
        let body = key.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        XCTAssertFalse(body.isEmpty)
        for line in body { XCTAssertFalse(server.log().contains(line), "the APNs key is in the log") }
    }

    func testJSONLines() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwired-log-json")
        let adminToken = "admin-\(UUID().uuidString)"
        let server = try PushwiredProcess(dataDirectory: directory, arguments: ["--admin-token", adminToken, "--log-level", "debug",
                                                                               "--log-format", "json"])
        defer { server.stop(); server.remove() }
        let session = try exercise(server, adminToken: adminToken)
        let log = server.log()
        var objects: [[String: String]] = []
        for line in log.split(separator: "\n") {
            let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            XCTAssertNotNil(parsed, "not a JSON object of strings: \(line)")
            if let parsed { objects.append(parsed) }
        }
        for object in objects {
            for key in ["time", "level", "label", "message"] { XCTAssertNotNil(object[key], "\(object)") }
        }
        XCTAssertTrue(objects.contains { $0["message"] == "call" && $0["method"] == "/pushwire.v1.Devices/RegisterDevice" && $0["application"] == session.code })
        XCTAssertTrue(objects.contains { $0["level"] == "notice" && $0["message"] == "application created" && $0["by"] == "admin" })
        XCTAssertTrue(objects.contains { $0["level"] == "info" && $0["message"] == "message delivered" && $0["sent"] == "1" }, log)
        for secret in [adminToken] + session.tokens {
            XCTAssertFalse(log.contains(secret), "a token is in the log")
        }
    }

    /// Calls refused before their method is looked up (call id 0, a call id already in flight,
    /// over the in-flight limit) get their call line too, with the status they were answered.
    func testCallsRefusedBeforeTheirMethodIsKnownAreLogged() throws {
        let server = try PushwiredProcess(dataDirectory: try PushwiredProcess.temporaryDirectory("pushwired-refused"),
                                          arguments: ["--admin-token", "refusal-admin", "--log-level", "debug", "--max-calls-per-connection", "1"])
        defer { server.stop(); server.remove() }
        let client = try TestClient(try SocketAddress(parsing: server.address))
        try client.start("/pushwire.v1.Health/Check", callID: 0)
        XCTAssertEqual(try client.readResponse().code, .invalidArgument)

        // CreateApplication runs in a task, so it is still in flight when the frames after it in
        // the same write are read: the second is refused for its call id, the third for the limit.
        func frame(_ callID: UInt32, _ path: String, _ message: [UInt8]) -> [UInt8] {
            var request = Request()
            request.method = path
            request.message = message
            request.metadata = [Metadata(key: "authorization", value: "Bearer refusal-admin")]
            var frame = Frame()
            frame.callID = callID
            frame.kind = .request(request)
            var bytes: [UInt8] = []
            frame.encode(appendingTo: &bytes, lengthPrefixed: true)
            return bytes
        }
        var createRequest = CreateApplicationRequest()
        createRequest.name = "refusals"
        let create = createRequest.encode()
        try client.sendRaw(frame(1, "/pushwire.v1.Admin/CreateApplication", create) + frame(1, "/pushwire.v1.Admin/CreateApplication", create)
                           + frame(2, "/pushwire.v1.Health/Check", []))
        var codes: [StatusCode] = []
        for _ in 0..<3 { codes.append(try client.readResponse().code) }
        XCTAssertEqual(codes.sorted { $0.rawValue < $1.rawValue }, [.ok, .invalidArgument, .resourceExhausted].sorted { $0.rawValue < $1.rawValue })

        for expected in ["method=/pushwire.v1.Health/Check status=INVALID_ARGUMENT",
                         "method=/pushwire.v1.Admin/CreateApplication status=INVALID_ARGUMENT",
                         "method=/pushwire.v1.Health/Check status=RESOURCE_EXHAUSTED",
                         "method=/pushwire.v1.Admin/CreateApplication status=OK"] {
            XCTAssertTrue(server.waitForLog(expected), "\(expected): \(server.log())")
        }
        XCTAssertFalse(server.log().contains("refusal-admin"), "no token in the log")
    }
}
