import Foundation
import XCTest

/// Runs Scripts/apns-double/apns_double.py as a subprocess for one test, with throw-away TLS and
/// signing material made once per test run by Scripts/apns-double/make-certs.
final class APNsDouble: PushDouble {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let topic = "com.example.pushwire"

    static let scriptsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/apns-double")

    /// The directory holding ca.pem, server.pem/key, app.p8 and app.pub.pem, or why there is none.
    nonisolated(unsafe) private static var material: Result<URL, Error>?
    private static let materialLock = NSLock()

    /// Makes (once) the certificates and key, or skips the test when python3, h2, cryptography or
    /// openssl are missing (Scripts/test installs them).
    static func materialDirectory() throws -> URL {
        materialLock.lock()
        defer { materialLock.unlock() }
        if let material { return try material.get() }
        let result = Result<URL, Error> {
            guard run("/usr/bin/env", ["python3", "-c", "import h2, cryptography"]) == 0 else {
                throw XCTSkip("APNs double needs python3 with h2 and cryptography: pip install h2 cryptography")
            }
            guard run("/usr/bin/env", ["openssl", "version"]) == 0 else {
                throw XCTSkip("APNs double needs the openssl CLI: apt-get install openssl")
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushwire-apns-\(getpid())")
            guard run(scriptsDirectory.appendingPathComponent("make-certs").path, [directory.path]) == 0 else {
                throw XCTSkip("Scripts/apns-double/make-certs failed")
            }
            return directory
        }
        material = result
        return try result.get()
    }

    static func p8() throws -> String {
        try String(contentsOf: materialDirectory().appendingPathComponent("app.p8"), encoding: .utf8)
    }

    static func caFile() throws -> String { try materialDirectory().appendingPathComponent("ca.pem").path }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Starts the double with extra `arguments` (rules, GOAWAY, delay), on `port` (0: any).
    init(_ arguments: [String] = [], port: Int = 0, logPath: String? = nil) throws {
        let directory = try Self.materialDirectory()
        try super.init("APNs", script: Self.scriptsDirectory.appendingPathComponent("apns_double.py"),
                       logPath: logPath ?? directory.appendingPathComponent("log-\(UUID().uuidString).jsonl").path,
                       material: directory, port: port, arguments: [
            "--public-key", directory.appendingPathComponent("app.pub.pem").path,
            "--team-id", Self.teamID, "--key-id", Self.keyID, "--topic", Self.topic,
        ] + arguments)
    }
}
