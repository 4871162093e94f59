import Foundation
import PushwireWire
import XCTest
@testable import PushwireService
import PushwireStore

/// Issue 16, item 7, through real `pushwired` processes: a full disk answers RESOURCE_EXHAUSTED
/// and turns Health/Check NOT_SERVING until there is room again; a log recovered at start is
/// logged; `pushwired --check` tells a whole database from a damaged one.
final class StorageFaultServerTests: XCTestCase {
    /// A pushwired whose standard error goes to a file, at log level notice.
    private struct Logged {
        let process: Process
        let port: UInt16
        let logPath: String

        var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    }

    private func start(_ path: String, dataDirectory: String) throws -> Logged {
        let logPath = NSTemporaryDirectory() + "pushwire-fault-log-\(getpid())-\(UUID().uuidString.prefix(8))"
        FileManager.default.createFile(atPath: logPath, contents: nil)
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
        while Date() < deadline, !text.contains("listening on") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
              let port = line.split(separator: ":").last.flatMap({ UInt16($0.trimmingCharacters(in: .whitespaces)) }) else {
            process.terminate()
            throw RawClient.Failure(description: "pushwired did not start: \(text)")
        }
        return Logged(process: process, port: port, logPath: logPath)
    }

    private func health(_ client: RawClient, callID: UInt32) throws -> ServingStatus {
        try client.call(Methods.Health.check, HealthCheckRequest(), callID: callID).status
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

        // Fill what is left, then register until a write fails.
        let filler = mountPoint + "/filler"
        FileManager.default.createFile(atPath: filler, contents: Data(repeating: 1, count: 2_700_000))
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

        // Room again: the next write succeeds and the server serves.
        try FileManager.default.removeItem(atPath: filler)
        let after = try register(client, code, "after-the-disk-was-freed", callID: callID + 2)
        XCTAssertEqual(after.0, 0, after.1)
        XCTAssertEqual(try health(client, callID: callID + 3), .serving)
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

    /// Runs a program to its end; its exit status.
    static func run(_ path: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs pushwired to its end (at most 30 s); its status and its output (stdout and stderr).
    static func capture(_ path: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { return (-1, "\(error)") }
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return (process.terminationStatus, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
