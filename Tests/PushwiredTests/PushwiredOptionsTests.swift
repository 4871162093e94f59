import Foundation
import XCTest

/// pushwired's command line, config file and environment, through the built binary: every option
/// its --help lists is one the parser accepts, and bad input is a usage error (exit 64, one line
/// naming the option, a pointer to --help) before anything is opened.
final class PushwiredOptionsTests: XCTestCase {
    /// A valid value for every option that takes one, for the check that --help and the parser agree.
    private let samples: [String: String] = [
        "listen": "127.0.0.1:0", "http-listen": "off", "http-max-body": "4096", "http-request-timeout": "5s",
        "http-idle-timeout": "1m", "call-metrics": "off", "threads": "2", "data-dir": "/nonexistent/pushwire-options",
        "database-url": "postgresql://u@127.0.0.1:1/db", "sink": "/nonexistent/sink.jsonl", "sink-max-bytes": "65536",
        "sink-keep": "3", "max-frame-size": "65536", "max-calls-per-connection": "8", "max-connections": "10",
        "max-connections-per-peer": "5", "idle-timeout": "0", "preface-timeout": "500ms", "frame-timeout": "2s",
        "drain-timeout": "1s", "max-output-buffer": "65536", "max-buffered-bytes": "1048576", "socket-send-buffer": "65536", "log-level": "debug",
        "log-format": "json", "admin-token": "t0k3n", "apns-url": "https://127.0.0.1:8443", "apns-ca-file": "/nonexistent/ca.pem",
        "fcm-url": "https://127.0.0.1:8444", "fcm-ca-file": "/nonexistent/ca.pem", "config": "",
        "tls-cert": "/nonexistent/fullchain.pem", "tls-key": "/nonexistent/key.pem", "tls-client-ca": "/nonexistent/ca.pem",
        "tls-handshake-timeout": "5s", "outbox-lease": "5s", "fanout-batch": "5000", "delivery-cache-bytes": "1048576", "plaintext-listen": "127.0.0.1:0",
        "http-plaintext-listen": "127.0.0.1:0",
    ]

    private func pushwired(_ arguments: [String], environment: [String: String] = [:]) throws -> ExecutableRun {
        try runExecutable("pushwired", arguments, environment: environment, timeout: 30)
    }

    /// Asserts a usage error: exit 64, the message on the first line, the pointer to --help on the second.
    private func assertUsageError(_ arguments: [String], _ message: String, environment: [String: String] = [:],
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let run = try pushwired(arguments, environment: environment)
        XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)", file: file, line: line)
        XCTAssertEqual(run.stderr, "pushwired: \(message)\nsee 'pushwired --help'\n", "\(arguments)", file: file, line: line)
        XCTAssertEqual(run.stdout, "", file: file, line: line)
    }

    func testEveryOptionTheHelpListsIsAccepted() throws {
        let help = try pushwired(["--help"])
        XCTAssertEqual(help.status, 0)
        let listed = help.stdout.split(separator: "\n").compactMap { line -> (String, Bool)? in
            let words = line.split(separator: " ")
            guard let first = words.first, first.hasPrefix("--"), line.hasPrefix("  ") else { return nil }
            return (String(first.dropFirst(2)), words.count > 1 && words[1].hasPrefix("<"))
        }
        XCTAssertGreaterThan(listed.count, 25, help.stdout)
        for (name, takesValue) in listed where takesValue && name != "config" {
            guard let sample = samples[name] else {
                XCTFail("--\(name) is in --help but has no sample value in this test")
                continue
            }
            // Options apply in order, so an error about the --threads after it means --name was accepted.
            try assertUsageError(["--\(name)", sample, "--threads", "0"], "--threads: '0' is not a whole number of at least 1")
        }
        XCTAssertTrue(help.stdout.contains("--version"))
        XCTAssertEqual(try pushwired(["--version"]).stdout, "pushwired 0.1.0\n")
    }

    func testBadValuesAreUsageErrorsNamingTheOption() throws {
        try assertUsageError(["--frob", "x"], "unknown option '--frob'")
        // The unknown option is named before a value is taken: it must not swallow the next flag.
        try assertUsageError(["--bogus", "--listen", "127.0.0.1:0"], "unknown option '--bogus'")
        try assertUsageError(["--listen", "127.0.0.1:0", "--bogus", "--help"], "unknown option '--bogus'")
        try assertUsageError(["--bogus=1", "--threads", "0"], "unknown option '--bogus'")
        try assertUsageError(["stray"], "unexpected argument 'stray'")
        try assertUsageError(["--threads"], "--threads needs a value")
        try assertUsageError(["--threads", "many"], "--threads: 'many' is not a whole number of at least 1")
        try assertUsageError(["--log-level", "loud"], "--log-level: 'loud' is not one of trace, debug, info, notice, warning, error, critical")
        try assertUsageError(["--log-format", "xml"], "--log-format: 'xml' is not text or json")
        try assertUsageError(["--call-metrics", "maybe"], "--call-metrics: 'maybe' is not on or off")
        try assertUsageError(["--idle-timeout", "forever"], "--idle-timeout: 'forever' is not a duration such as 30s, 500ms or 5m")
        try assertUsageError(["--apns-url", "http://127.0.0.1:1"], "--apns-url: 'http://127.0.0.1:1' is not an https:// URL")
        try assertUsageError(["--fcm-url", "https://"], "--fcm-url: 'https://' is not an https:// URL")
        try assertUsageError(["--admin-token="], "--admin-token must not be empty")
        try assertUsageError(["--apns-ca-file="], "--apns-ca-file must not be empty")
        try assertUsageError(["--fcm-ca-file="], "--fcm-ca-file must not be empty")
        try assertUsageError(["--database-url", "mysql://root:secret@db/x"], "--database-url: 'mysql://root@db/x' is not a postgresql:// URL")
    }

    func testTheConfigFileAndTheEnvironmentAreCheckedLikeFlags() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwired-options")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("pushwired.conf")
        try "# a comment\nlog-level = debug\n\nthreads = 0\n".write(to: config, atomically: true, encoding: .utf8)
        try assertUsageError(["--config", config.path], "\(config.path):4: --threads: '0' is not a whole number of at least 1")
        try "listen\n".write(to: config, atomically: true, encoding: .utf8)
        try assertUsageError(["--config", config.path], "\(config.path):1: expected 'key = value'")
        let missing = directory.appendingPathComponent("none.conf").path
        try assertUsageError(["--config", missing], "cannot read the config file '\(missing)': No such file or directory")
    }

    func testTheDatabaseURLFromTheEnvironmentIsNamedInItsError() throws {
        try assertUsageError([], "PUSHWIRE_DATABASE_URL: --database-url: 'sqlite:///x' is not a postgresql:// URL",
                             environment: ["PUSHWIRE_DATABASE_URL": "sqlite:///x"])
    }
}
