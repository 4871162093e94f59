import Foundation
import PushwireWire
import XCTest

/// pushwired on PostgreSQL (`--database-url`), end to end over real sockets and processes: the
/// store lives in the database (a second server with another data directory sees it), and a
/// database that goes away makes writes fail with UNAVAILABLE and Health/Check say NOT_SERVING
/// until it is back, when service resumes by itself.
final class PostgresServerTests: XCTestCase {
    func testPushwiredOnPostgreSQLThroughAnOutage() throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        guard let base = ProcessInfo.processInfo.environment["PUSHWIRE_TEST_DATABASE_URL"], !base.isEmpty else {
            let message = "PUSHWIRE_TEST_DATABASE_URL is not set: pushwired-on-PostgreSQL test SKIPPED (Scripts/test sets it)"
            FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
            throw XCTSkip(message)
        }
        _ = base
        // A cluster of its own: this test stops and starts it.
        let lines = try PostgresCluster.run(["start", "--fast"])
        guard lines.count >= 2 else { return XCTFail("Scripts/postgres start printed \(lines)") }
        let (url, directory) = (lines[0], lines[1])
        defer { _ = try? PostgresCluster.run(["stop", directory]) }

        let dataDirectory = NSTemporaryDirectory() + "pushwire-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer {
            try? FileManager.default.removeItem(atPath: dataDirectory)
            try? FileManager.default.removeItem(atPath: dataDirectory + "-b")
        }
        let (server, port) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory,
                                                                extraArguments: ["--database-url", url])
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let client = try RawClient(port: port)
        var callID: UInt32 = 100
        func next() -> UInt32 { callID += 1; return callID }

        let created = try CrashRecoveryTests.createApplication(named: "on-postgres", through: client)
        let code = try XCTUnwrap(created.application?.code)
        func register(_ hwid: String) throws {
            var request = RegisterDeviceRequest()
            request.application = code
            request.hwid = hwid
            request.pushToken = String(repeating: "ab", count: 32)
            request.deviceType = .ios
            _ = try client.call(Methods.Devices.registerDevice, request, callID: next())
        }
        func serving() throws -> Bool {
            try client.call(Methods.Health.check, HealthCheckRequest(), callID: next()).status == .serving
        }
        try register("before-outage")
        XCTAssertTrue(try serving())

        try PostgresCluster.run(["down", directory])
        XCTAssertThrowsError(try register("during-outage")) { error in
            guard let error = error as? RPCError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .unavailable, "\(error)")
            XCTAssertTrue(error.message.contains("database"), error.message)
        }
        XCTAssertTrue(try waitFor { try !serving() }, "Health/Check kept saying SERVING with the database down")

        try PostgresCluster.run(["up", directory])
        XCTAssertTrue(try waitFor { try serving() }, "Health/Check did not come back to SERVING")
        XCTAssertTrue(try waitFor { (try? register("after-outage")) != nil }, "writes did not resume")

        // What was acknowledged is in the database: a second pushwired on it, with a data
        // directory of its own, lists the application.
        let otherDirectory = dataDirectory + "-b"
        let (other, otherPort) = try CrashRecoveryTests.startServer(path, dataDirectory: otherDirectory,
                                                                    extraArguments: ["--database-url", url])
        defer { if other.isRunning { kill(other.processIdentifier, SIGKILL) } }
        let otherClient = try RawClient(port: otherPort)
        let listed = try otherClient.call(Methods.Admin.listApplications, ListApplicationsRequest(), token: "crash-admin", callID: 7)
        XCTAssertEqual(listed.applications.map(\.code), [code])
        other.terminate()
        other.waitUntilExit()
        server.terminate()
        server.waitUntilExit()
        XCTAssertEqual(server.terminationStatus, 0)
    }

    /// A URL that is not PostgreSQL's is a usage error (64); a database that cannot be reached
    /// fails the start (1) with the URL, without its password, in the message.
    func testBadDatabaseURLs() throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let dataDirectory = NSTemporaryDirectory() + "pushwire-pgbad-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let (usage, usageErrors) = try DataDirectoryLockTests.runToExit(
            path, ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", "x", "--database-url", "mysql://a:b@c/d"])
        XCTAssertEqual(usage, 64, usageErrors)
        XCTAssertTrue(usageErrors.contains("is not a postgresql:// URL"), usageErrors)
        XCTAssertFalse(usageErrors.contains(":b@"), usageErrors)
        let (status, errors) = try DataDirectoryLockTests.runToExit(
            path, ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", "x",
                   "--database-url", "postgresql://who:secret@127.0.0.1:1/none"])
        XCTAssertEqual(status, 1, errors)
        XCTAssertTrue(errors.contains("postgresql://who@127.0.0.1:1/none"), errors)
        XCTAssertFalse(errors.contains("secret"), errors)
    }

    private func waitFor(_ timeout: TimeInterval = 15, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if (try? condition()) == true { return true }
            usleep(50_000)
        }
        return try condition()
    }
}

/// `Scripts/postgres`, run to its end (through the tests' one runner of it, `postgresScript`).
enum PostgresCluster {
    /// Runs `Scripts/postgres` with `arguments`; its output's lines.
    @discardableResult
    static func run(_ arguments: [String]) throws -> [String] { try postgresScript(arguments) }
}
