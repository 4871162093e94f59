import XCTest
import Foundation

/// `pushwire demo` against a real `pushwired` subprocess.
final class CLIEndToEndTests: XCTestCase {
    func testDemoAgainstPushwired() throws {
        let server = try PushwiredProcess(dataDirectory: try PushwiredProcess.temporaryDirectory("pushwire-e2e"),
                                          arguments: ["--admin-token", "e2e-admin", "--log-level", "warning"])
        defer {
            server.stop()
            server.remove()
        }
        let address = server.address
        let result = try CLIGroupCommandTests.run(["demo", "--server", address, "--admin-token", "e2e-admin", "--timeout", "30"])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertTrue(result.stdout.contains("targeted:  3"), result.stdout)
        XCTAssertTrue(result.stdout.contains("sent:      3"), result.stdout)
        XCTAssertTrue(result.stdout.contains("opened:    "), result.stdout)
        XCTAssertTrue(result.stdout.contains("Yes (button 0): 1"), result.stdout)
        XCTAssertTrue(result.stdout.contains("No (button 1): 1"), result.stdout)

        // The notifications went to the file sink (by default in the data directory), one JSON line each.
        if let sink = try? String(contentsOf: server.dataDirectory.appendingPathComponent("sink.jsonl"), encoding: .utf8) {
            XCTAssertEqual(sink.split(separator: "\n").count, 3, sink)
        }
    }
}
