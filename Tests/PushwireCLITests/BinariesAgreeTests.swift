import XCTest
import Foundation
import Glibc

/// The three executables agree (issue 21, item 1): a usage error exits 64 with one line and a
/// pointer to `--help`; `--version` works; the server address is `--server` (`--target` stays an
/// alias in the bench); pushwired writes a generated admin token only once it has started.
final class BinariesAgreeTests: XCTestCase {
    func testUsageErrorsAreOneLineAndExit64() throws {
        let cases: [(String, [String], String)] = [
            ("pushwire", ["health", "--server", "127.0.0.1"], "see 'pushwire --help'"),
            ("pushwire", ["--bogus"], "see 'pushwire --help'"),
            ("pushwired", ["--bogus", "1"], "see 'pushwired --help'"),
            ("pushwired", ["--threads", "zero"], "see 'pushwired --help'"),
            // An unknown option does not take the next flag as its value.
            ("pushwired", ["--bogus", "--listen", "127.0.0.1:0"], "see 'pushwired --help'"),
            ("pushwire-bench", ["ping", "--server", "127.0.0.1"], "see 'pushwire-bench --help'"),
            ("pushwire-bench", ["ping", "--bogus"], "see 'pushwire-bench --help'"),
            ("pushwire-bench", ["frobnicate"], "see 'pushwire-bench --help'"),
            ("pushwire-bench", ["fanout", "--bogus"], "see 'pushwire-bench fanout --help'"),
        ]
        for (binary, arguments, pointer) in cases {
            let result = try runExecutable(binary, arguments)
            XCTAssertEqual(result.status, 64, "\(binary) \(arguments): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, "\(binary) \(arguments): \(result.stderr)")
            XCTAssertEqual(lines.last.map(String.init), pointer, "\(binary) \(arguments)")
        }
    }

    func testVersionInAllThree() throws {
        for binary in ["pushwire", "pushwired", "pushwire-bench"] {
            let result = try runExecutable(binary, ["--version"])
            XCTAssertEqual(result.status, 0, "\(binary): \(result.stderr)")
            XCTAssertTrue(result.stdout.hasPrefix("\(binary) 0."), "\(binary): \(result.stdout)")
        }
    }

    /// `--server` in the bench, `--target` as its alias: both reach the address given (port 1,
    /// nothing listens: a connection failure, exit 1, not a usage error).
    func testBenchTakesServerAndTarget() throws {
        for flag in ["--server", "--target"] {
            let result = try runExecutable("pushwire-bench", ["ping", flag, "127.0.0.1:1", "--requests", "1", "--warmup", "0s"])
            XCTAssertEqual(result.status, 1, "\(flag): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("127.0.0.1:1") || result.stderr.contains("refused"), "\(flag): \(result.stderr)")
        }
    }

    /// A start that fails (the port is taken) leaves no admin-token file; a start that succeeds
    /// writes the token it printed.
    func testAdminTokenWrittenOnlyOnceStarted() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwired-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Hold a port so that pushwired cannot listen on it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        XCTAssertTrue(bound)
        let port = UInt16(bigEndian: address.sin_port)

        let failed = try runExecutable("pushwired", ["--listen", "127.0.0.1:\(port)", "--data-dir", directory.path, "--log-level", "error"], timeout: 60)
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertFalse(failed.stdout.contains("admin token"), failed.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("admin-token").path))

        let server = try PushwiredProcess(dataDirectory: directory, arguments: ["--log-level", "warning"])
        defer { server.stop() }
        // stdout is a pipe here, as under systemd (the journal): the token is not printed, only where it is.
        XCTAssertTrue(server.startupLines.contains("admin token written to \(directory.path)/admin-token"), "\(server.startupLines)")
        let saved = try String(contentsOf: directory.appendingPathComponent("admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(saved.count, 64)
        XCTAssertFalse(server.startupLines.joined().contains(saved))
        XCTAssertFalse(server.log().contains(saved))

        // A second pushwired on the same data directory is refused (the directory is locked).
        let second = try runExecutable("pushwired", ["--listen", "127.0.0.1:0", "--data-dir", directory.path], timeout: 60)
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("another process (pid \(server.process.processIdentifier)) is using this data directory"), second.stderr)
    }
}
