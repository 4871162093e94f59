#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import PushwireRuntime

/// pushwired's HTTP door flags: on by default (loopback, a free port when --listen's is 0), and
/// `--http-listen off`.
extension PushwiredProcessTests {
    /// Everything pushwired printed on stdout until it exited after SIGTERM.
    private func stdoutAfterStopping(_ running: Running) -> String {
        kill(running.process.processIdentifier, SIGTERM)
        running.process.waitUntilExit()
        return String(decoding: running.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    func testHTTPDoorIsOnByDefaultAndAnswers() throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let running = try launch(["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", "t"])
        // The HTTP line follows the RPC one; poll the door until it answers.
        var answered: HTTPTestClient.Response?
        let deadline = Date().addingTimeInterval(5)
        var lines = ""
        while answered == nil, Date() < deadline {
            let chunk = running.output.fileHandleForReading.availableData
            lines += String(decoding: chunk, as: UTF8.self)
            if let line = lines.split(separator: "\n").first(where: { $0.hasPrefix("HTTP listening on ") }) {
                let address = try SocketAddress(parsing: String(line.dropFirst("HTTP listening on ".count)))
                XCTAssertTrue(address.description.hasPrefix("127.0.0.1:"))
                XCTAssertNotEqual(address.port, 0)
                let client = try HTTPTestClient(address)
                try client.send(HTTPTestClient.request("GET", "/healthz"))
                answered = try client.readResponse()
            }
        }
        _ = stdoutAfterStopping(running)
        XCTAssertEqual(answered?.status, 200)
        XCTAssertTrue(answered?.text.contains(#""store":{"serving":true"#) ?? false, answered?.text ?? "no answer")
    }

    func testHTTPListenOffOpensNoDoor() throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let running = try launch(["--listen", "127.0.0.1:0", "--http-listen", "off", "--data-dir", dataDirectory, "--admin-token", "t"])
        usleep(300_000)
        let printed = stdoutAfterStopping(running)
        XCTAssertFalse(printed.contains("HTTP listening"), printed)
        XCTAssertEqual(running.process.terminationStatus, 0)
    }
}
