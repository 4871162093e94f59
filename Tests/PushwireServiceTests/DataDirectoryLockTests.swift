import Foundation
import XCTest

/// Issue 15, item 3: with SQLite only one process may use a data directory. A second pushwired
/// on the same `--data-dir` refuses to start, saying why; once the first is gone (even by
/// `kill -9`) the directory can be used again.
final class DataDirectoryLockTests: XCTestCase {
    func testASecondPushwiredOnTheSameDataDirectoryRefusesToStart() throws {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let dataDirectory = NSTemporaryDirectory() + "pushwire-lock-\(getpid())-\(UUID().uuidString.prefix(8))"
        let (first, _) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }

        let (status, errors) = try Self.runToExit(path, ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", "x"])
        XCTAssertEqual(status, 1, "the second pushwired exits with a failure: \(errors)")
        // One lock, the store's (pushwire.lock), taken by whatever opens the directory.
        XCTAssertTrue(errors.contains("another process (pid \(first.processIdentifier)) is using this data directory"), errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory + "/pushwired.lock"), "no second lock file")
        XCTAssertTrue(errors.contains(dataDirectory), "the message names the directory: \(errors)")
        XCTAssertTrue(first.isRunning, "the first one keeps serving")

        // The kernel drops the lock with its process, however it ends.
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let (third, _) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory)
        XCTAssertTrue(third.isRunning, "a directory whose pushwired died can be used again")
        third.terminate()
        third.waitUntilExit()
    }

    /// Runs pushwired until it exits (at most 20 s); its status and standard error.
    static func runToExit(_ path: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (-1, "still running after 20 s (it started a second server on the directory)")
        }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }
}
