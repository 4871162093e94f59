#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import PushwireRuntime

/// pushwired's HTTP door flags: on by default (loopback, a free port when --listen's is 0), and
/// `--http-listen off`.
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
}
