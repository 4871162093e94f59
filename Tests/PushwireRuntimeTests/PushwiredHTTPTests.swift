#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import PushwireRuntime

/// pushwired's HTTP door flags: on by default (loopback, a free port when --listen's is 0),
/// `--http-listen off`, and https with --tls-cert (curl with --cacert, as README shows).
extension PushwiredProcessTests {
    func testHTTPDoorIsOnByDefaultAndAnswers() throws {
        try withPushwiredHTTPDoor(adminToken: "t", watchdogSeconds: 10) { door in
            XCTAssertTrue(door.description.hasPrefix("127.0.0.1:"))
            XCTAssertNotEqual(door.port, 0)
            let client = try HTTPTestClient(door)
            try client.send(HTTPTestClient.request("GET", "/healthz"))
            let answer = try client.readResponse()
            XCTAssertEqual(answer.status, 200)
            XCTAssertTrue(answer.text.contains(#""store":{"serving":true"#), answer.text)
        }
    }

    func testHTTPListenOffOpensNoDoor() throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let started = try PushwiredProcess.launch(
            executable: executable,
            arguments: ["--listen", "127.0.0.1:0", "--http-listen", "off", "--data-dir", dataDirectory, "--admin-token", "t"],
            standardError: FileHandle.nullDevice)
        let process = started.process
        // Stopped once it has said where it listens; the HTTP door's line would follow that one at
        // once (the signal is handled on another thread), so the output read after the exit holds it.
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let printed = started.lines.map { $0 + "\n" }.joined() + String(decoding: started.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("listening on 127.0.0.1:"), printed)
        XCTAssertFalse(printed.contains("HTTP listening"), printed)
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// curl with `arguments`; its exit status, and stdout with the HTTP status appended.
    private func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = try runProgram(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--max-time", "10", "-w", "\\n%{http_code}"] + arguments, timeout: 30)
        return (run.status, run.stdout + run.stderr)
    }

    func testTheHTTPDoorSpeaksTLSWithTheRPCPortsCertificate() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { throw XCTSkip("curl is not installed") }
        let ca = TestTLS.path("ca.pem")
        let arguments = ["--tls-cert", TestTLS.path("server.pem"), "--tls-key", TestTLS.path("server.key"), "--tls-client-ca", ca,
                         "--http-plaintext-listen", "127.0.0.1:0"]
        try withPushwiredDoors(adminToken: "t", watchdogSeconds: 30, arguments: arguments) { _, door, output in
            let https = "https://\(door)"
            let health = try curl(["--cacert", ca, "\(https)/healthz"])
            XCTAssertEqual(health.status, 0, health.output)
            XCTAssertTrue(health.output.hasSuffix("\n200") && health.output.contains(#""serving":true"#), health.output)
            // Clear text on the TLS door gets no HTTP answer.
            let plain = try curl(["http://\(door)/healthz"])
            XCTAssertNotEqual(plain.status, 0, plain.output)
            XCTAssertFalse(plain.output.contains("HTTP/1.1"), plain.output)
            // --tls-client-ca: the Admin service needs a client certificate of that CA, over HTTP too.
            let list = ["-H", "Content-Type: application/json", "-H", "Authorization: Bearer t", "-d", "{}",
                        "\(https)/pushwire.v1.Admin/ListApplications"]
            let refused = try curl(["--cacert", ca] + list)
            XCTAssertTrue(refused.output.hasSuffix("\n403") && refused.output.contains("permission_denied"), refused.output)
            let admitted = try curl(["--cacert", ca, "--cert", TestTLS.path("client.pem"), "--key", TestTLS.path("client.key")] + list)
            XCTAssertTrue(admitted.output.hasSuffix("\n200"), admitted.output)
            // The clear-text listener beside it serves the same door (loopback: no warning).
            let plaintext = try XCTUnwrap(try output.address(after: "HTTP plaintext listening on "), output.stdout)
            let local = try curl(["http://\(plaintext)/healthz"])
            XCTAssertTrue(local.output.hasSuffix("\n200"), local.output)
            XCTAssertFalse(output.log.contains("clear text on a non-loopback"), output.log)
        }
    }
}
