import Foundation
import PushwireWire
import XCTest
@testable import PushwireService
import PushwireStore

/// Issue 16, item 7, through real `pushwired` processes: a full disk answers RESOURCE_EXHAUSTED
/// and turns Health/Check NOT_SERVING and `GET /healthz` 503 (one health state, the store's,
/// behind both doors) until there is room again; a log recovered at start is
/// logged; `pushwired --check` tells a whole database from a damaged one.
final class StorageFaultServerTests: XCTestCase {
    /// A pushwired whose standard error goes to a file, at log level notice.
    private struct Logged {
        let process: Process
        let port: UInt16
        /// The HTTP door's port (`/healthz`).
        let httpPort: UInt16
        let logPath: String

        var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    }

    private func start(_ path: String, dataDirectory: String) throws -> Logged {
        let logPath = NSTemporaryDirectory() + "pushwire-fault-log-\(getpid())-\(UUID().uuidString.prefix(8))"
        XCTAssertTrue(FileManager.default.createFile(atPath: logPath, contents: nil))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", "crash-admin",
                             "--log-level", "notice", "--sink", "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !text.contains("HTTP listening on") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        func portAfter(_ prefix: String) -> UInt16? {
            text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) })
                .flatMap { $0.split(separator: ":").last }.flatMap { UInt16($0.trimmingCharacters(in: .whitespaces)) }
        }
        guard let port = portAfter("listening on"), let httpPort = portAfter("HTTP listening on") else {
            process.terminate()
            throw RawClient.Failure(description: "pushwired did not start: \(text)")
        }
        return Logged(process: process, port: port, httpPort: httpPort, logPath: logPath)
    }

    private func health(_ client: RawClient, callID: UInt32) throws -> ServingStatus {
        try client.call(Methods.Health.check, HealthCheckRequest(), callID: callID).status
    }

    /// `GET /healthz` on the HTTP door: its status code and body.
    private func healthz(_ port: UInt16) throws -> (Int, String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClient.Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RawClient.Failure(description: "connect to the HTTP door: \(errno)") }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw RawClient.Failure(description: "send /healthz: \(errno)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while response.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        // "HTTP/1.1 503 Service Unavailable\r\n…"
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? -1
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }

    /// The outcome of registering `hwid`: 0 for OK, else the status code.
    private func register(_ client: RawClient, _ code: String, _ hwid: String, callID: UInt32) throws -> (UInt32, String) {
        var request = RegisterDeviceRequest()
        request.application = code
        request.hwid = hwid
        request.pushToken = "abcd"
        request.deviceType = .ios
        try client.sendRequest(callID: callID, path: Methods.Devices.registerDevice.path, request)
        let response = try client.nextResponse()
        return (response.code, response.message)
    }

    func testAFullDiskAnswersResourceExhaustedAndHealthSaysNotServing() throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        // A small file system of its own, so that the disk really fills (needs root: mount).
        let mountPoint = NSTemporaryDirectory() + "pushwire-full-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mountPoint]) == 0 else {
            throw XCTSkip("cannot mount a small tmpfs here (not root?)")
        }
        defer { _ = Self.run("/bin/umount", ["-l", mountPoint]) }
        let dataDirectory = mountPoint + "/data"
        let server = try start(path, dataDirectory: dataDirectory)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let client = try RawClient(port: server.port)
        var create = CreateApplicationRequest()
        create.name = "full"
        let code = try XCTUnwrap(try client.call(Methods.Admin.createApplication, create, token: "crash-admin", callID: 1).application?.code)
        XCTAssertEqual(try health(client, callID: 2), .serving)
        XCTAssertEqual(try healthz(server.httpPort).0, 200)

        // Fill what is left, then register until a write fails.
        let filler = mountPoint + "/filler"
        XCTAssertTrue(FileManager.default.createFile(atPath: filler, contents: Data(repeating: 1, count: 2_700_000)))
        var failure: (UInt32, String)?
        var callID: UInt32 = 10
        for index in 0..<20_000 where failure == nil {
            callID += 1
            let outcome = try register(client, code, "device-\(index)-" + String(repeating: "x", count: 100), callID: callID)
            if outcome.0 != 0 { failure = outcome }
        }
        let (status, message) = try XCTUnwrap(failure, "a write must fail once the disk is full")
        XCTAssertEqual(StatusCode(wireValue: status), .resourceExhausted, message)
        XCTAssertTrue(message.contains("out of space"), message)
        XCTAssertEqual(try health(client, callID: callID + 1), .notServing, "writes cannot succeed")
        let (full, fullBody) = try healthz(server.httpPort)
        XCTAssertEqual(full, 503, "/healthz answers from the same state: \(fullBody)")
        XCTAssertTrue(fullBody.contains("\"not_serving\"") && fullBody.contains("out of space"), fullBody)

        // Room again: the next write succeeds and the server serves.
        try FileManager.default.removeItem(atPath: filler)
        let after = try register(client, code, "after-the-disk-was-freed", callID: callID + 2)
        XCTAssertEqual(after.0, 0, after.1)
        XCTAssertEqual(try health(client, callID: callID + 3), .serving)
        XCTAssertEqual(try healthz(server.httpPort).0, 200)
        server.process.terminate()
        server.process.waitUntilExit()
    }

    func testARecoveredLogIsLoggedAndTheCheckTellsWholeFromDamaged() throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let dataDirectory = NSTemporaryDirectory() + "pushwire-recover-\(getpid())-\(UUID().uuidString.prefix(8))"
        let first = try start(path, dataDirectory: dataDirectory)
        let client = try RawClient(port: first.port)
        var create = CreateApplicationRequest()
        create.name = "recover"
        let code = try XCTUnwrap(try client.call(Methods.Admin.createApplication, create, token: "crash-admin", callID: 1).application?.code)
        for index in 0..<50 { XCTAssertEqual(try register(client, code, "d\(index)", callID: UInt32(10 + index)).0, 0) }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()

        let second = try start(path, dataDirectory: dataDirectory)
        // SQLite reports the recovery (SQLITE_NOTICE_RECOVER_WAL) while the store opens.
        XCTAssertTrue(second.log.contains("recovered") && second.log.contains("sqlite:"), "the log recovery is logged: \(second.log)")
        second.process.terminate()  // a clean stop: everything goes into the database file
        second.process.waitUntilExit()
        XCTAssertEqual(second.process.terminationStatus, 0)

        let (whole, wholeOutput) = Self.capture(path, ["--check", "--data-dir", dataDirectory])
        XCTAssertEqual(whole, 0, wholeOutput)
        XCTAssertTrue(wholeOutput.contains(": ok ("), wholeOutput)

        let database = dataDirectory + "/pushwire.sqlite3"
        let size = ((try FileManager.default.attributesOfItem(atPath: database))[.size] as? NSNumber)?.intValue ?? 0
        XCTAssertGreaterThan(size, 4096 * 4, "the clean stop checkpointed the devices into the file")
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: database))
        try handle.seek(toOffset: UInt64(size - 4096))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let (damaged, damagedOutput) = Self.capture(path, ["--check", "--data-dir", dataDirectory])
        XCTAssertEqual(damaged, 1, damagedOutput)
        XCTAssertTrue(damagedOutput.contains("damaged"), damagedOutput)

        let (missing, missingOutput) = Self.capture(path, ["--check", "--data-dir", dataDirectory + "/nothing-here"])
        XCTAssertEqual(missing, 1, missingOutput)
        XCTAssertTrue(missingOutput.contains("not a Pushwire data directory"), missingOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory + "/nothing-here"), "the check creates nothing")
    }

    /// Runs a program to its end (at most 30 s, `runProgram`); its exit status, -1 when it did not start.
    static func run(_ path: String, _ arguments: [String]) -> Int32 {
        (try? runProgram(URL(fileURLWithPath: path), arguments, timeout: 30))?.status ?? -1
    }

    /// Runs pushwired to its end (at most 30 s); its status and its output (stdout, then stderr).
    static func capture(_ path: String, _ arguments: [String]) -> (Int32, String) {
        do {
            let run = try runProgram(URL(fileURLWithPath: path), arguments, timeout: 30)
            return (run.status, run.stdout + run.stderr)
        } catch {
            return (-1, "\(error)")
        }
    }
}
