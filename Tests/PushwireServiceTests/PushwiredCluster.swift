import Foundation
import PushwirePostgresStore
import PushwireWire
import XCTest

/// Several real `pushwired` processes (the built binary) on one PostgreSQL database, for the
/// multi-server tests: each server has its own port, data directory and file sink; the database
/// is a fresh one on the test run's PostgreSQL (`PUSHWIRE_TEST_DATABASE_URL`) unless one is given.
/// Servers are launched with `CrashRecoveryTests.startServer` (admin token `crash-admin`, so
/// `CrashRecoveryTests.createApplication` works through any of them). Everything started is
/// killed when the cluster is stopped or released.
final class PushwiredCluster {
    /// One server of the cluster; `process` is nil once it was killed or stopped.
    struct Member {
        var process: Process?
        var port: UInt16
        let dataDirectory: String
        let sinkPath: String
    }

    /// The database every server uses.
    let databaseURL: String
    /// The servers, by index.
    private(set) var members: [Member] = []
    private let executable: String
    private let extraArguments: [String]

    /// Starts `count` servers on one database.
    /// - Parameters:
    ///   - databaseURL: the database; nil: a fresh one on the test run's PostgreSQL.
    ///   - extraArguments: more pushwired options for every server (e.g. `--log-level info`).
    /// - Throws: `XCTSkip` when pushwired is not built or `PUSHWIRE_TEST_DATABASE_URL` is unset;
    ///   a failure when a server does not start.
    init(count: Int, databaseURL: String? = nil, extraArguments: [String] = []) throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        executable = path
        self.databaseURL = try databaseURL ?? PushwiredCluster.freshDatabaseURL()
        self.extraArguments = extraArguments
        do {
            for _ in 0..<count { try addServer() }
        } catch {
            stopAll()
            throw error
        }
    }

    deinit { stopAll() }

    /// A new, empty database on the test run's PostgreSQL; its URL.
    /// - Throws: `XCTSkip` (loudly) when `PUSHWIRE_TEST_DATABASE_URL` is not set.
    static func freshDatabaseURL() throws -> String {
        guard let base = ProcessInfo.processInfo.environment["PUSHWIRE_TEST_DATABASE_URL"], !base.isEmpty else {
            let message = "PUSHWIRE_TEST_DATABASE_URL is not set: multi-server tests SKIPPED (Scripts/test sets it)"
            FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
            throw XCTSkip(message)
        }
        let name = "pwcluster_\(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF)"
        try PostgresStore.createDatabase(named: name, using: base)
        return PostgresStore.url(base, database: name)
    }

    /// Starts one more server on the database; its index.
    @discardableResult
    func addServer() throws -> Int {
        let index = members.count
        let directory = NSTemporaryDirectory() + "pushwire-cluster-\(getpid())-\(UUID().uuidString.prefix(8))-\(index)"
        let sink = (directory as NSString).appendingPathComponent("sink.jsonl")
        let (process, port) = try CrashRecoveryTests.startServer(
            executable, dataDirectory: directory, extraArguments: ["--database-url", databaseURL] + extraArguments)
        members.append(Member(process: process, port: port, dataDirectory: directory, sinkPath: sink))
        return index
    }

    /// The port of server `index`.
    func port(_ index: Int) -> UInt16 { members[index].port }

    /// A new connection to server `index`.
    func client(_ index: Int) throws -> RawClient { try RawClient(port: members[index].port) }

    /// Whether server `index` is running.
    func isRunning(_ index: Int) -> Bool { members[index].process?.isRunning ?? false }

    /// `kill -9` of server `index`, waited for.
    func kill9(_ index: Int) {
        guard let process = members[index].process else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        members[index].process = nil
    }

    /// Starts server `index` again (after `kill9` or `stop`), with its data directory and sink,
    /// on a new port.
    func restart(_ index: Int) throws {
        kill9(index)
        let (process, port) = try CrashRecoveryTests.startServer(
            executable, dataDirectory: members[index].dataDirectory,
            extraArguments: ["--database-url", databaseURL] + extraArguments)
        members[index].process = process
        members[index].port = port
    }

    /// A graceful stop (SIGTERM) of server `index`; its exit status.
    @discardableResult
    func stop(_ index: Int) -> Int32? {
        guard let process = members[index].process else { return nil }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        members[index].process = nil
        return process.terminationStatus
    }

    /// Kills every server still running and removes their data directories.
    func stopAll() {
        for index in members.indices {
            kill9(index)
            try? FileManager.default.removeItem(atPath: members[index].dataDirectory)
        }
    }

    /// The lines of server `index`'s sink file (none when it does not exist yet).
    func sinkLines(_ index: Int) -> [Substring] {
        guard let data = FileManager.default.contents(atPath: members[index].sinkPath) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
    }

    /// The number of complete lines in server `index`'s sink, counted without decoding.
    func sinkLineCount(_ index: Int) -> Int {
        guard let data = FileManager.default.contents(atPath: members[index].sinkPath) else { return 0 }
        return data.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    /// The (message code, token) of every line of server `index`'s sink, in order.
    func sinkDeliveries(_ index: Int) -> [(code: String, token: String)] {
        sinkLines(index).compactMap { line in
            guard let code = PushwiredCluster.field("message_code", of: line),
                  let token = PushwiredCluster.field("token", of: line) else { return nil }
            return (code, token)
        }
    }

    /// The tokens message `code` reached through each server, by server index.
    func tokens(of code: String) -> [[String]] {
        members.indices.map { index in sinkDeliveries(index).filter { $0.code == code }.map(\.token) }
    }

    private static func field(_ name: String, of line: Substring) -> String? {
        guard let start = line.range(of: "\"\(name)\":\"") else { return nil }
        let rest = line[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}

/// Registers `count` iOS devices `<prefix>-1` … `<prefix>-count` (push token: the number in 64
/// hex digits, languages en/de/fr in turn) through `client`, 64 calls in flight.
func registerDevices(_ count: Int, application: String, prefix: String = "hw", through client: RawClient,
                     firstCallID: UInt32 = 1_000_000) throws {
    var next = 1, inFlight = 0, done = 0
    while done < count {
        while inFlight < 64 && next <= count {
            var request = RegisterDeviceRequest()
            request.application = application
            request.hwid = "\(prefix)-\(next)"
            request.pushToken = String(format: "%064x", next)
            request.deviceType = .ios
            request.language = ["en", "de", "fr"][next % 3]
            try client.sendRequest(callID: firstCallID + UInt32(next), path: Methods.Devices.registerDevice.path, request)
            next += 1
            inFlight += 1
        }
        let response = try client.nextResponse()
        guard response.code == 0 else { throw RawClient.Failure(description: "RegisterDevice failed: \(response.code) \(response.message)") }
        inFlight -= 1
        done += 1
    }
}

/// GetMessageDetails of `code` through `client`, asked until `done` holds or `timeout` passes;
/// the last answer.
func messageDetails(_ code: String, token: String, through client: RawClient, timeout: TimeInterval = 30,
                    until done: (GetMessageDetailsResponse) -> Bool = { $0.status == .done }) throws -> GetMessageDetailsResponse {
    var request = GetMessageDetailsRequest()
    request.messageCode = code
    let deadline = Date(timeIntervalSinceNow: timeout)
    var callID: UInt32 = 500_000
    while true {
        callID += 1
        let details = try client.call(Methods.Messages.getMessageDetails, request, token: token, callID: callID)
        if done(details) || Date() >= deadline { return details }
        usleep(50_000)
    }
}
