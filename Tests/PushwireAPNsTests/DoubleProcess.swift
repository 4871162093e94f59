import Foundation
import XCTest

/// What launching and reading a push-service double has in common, for `APNsDouble` and
/// `FCMDouble`: both are python3 scripts (Scripts/apns-double, Scripts/fcm-double) that print
/// "PORT <n>" once they listen, append one JSON line per answered request to --log, and on SIGTERM
/// flush the answers they gave and close. Shared with PushwireServiceTests through a symbolic link.
enum DoubleProcess {
    /// Starts `python3 script arguments` and waits for its "PORT <n>" line: the running process and
    /// its port. Throws XCTSkip naming `name` when the double did not start.
    static func launch(_ name: String, script: URL, arguments: [String]) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The double prints "PORT <n>" once it listens.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }) else {
            process.terminate()
            throw XCTSkip("the \(name) double did not start: \(text)")
        }
        return (process, port)
    }

    /// Stops `process` (SIGTERM: the double flushes the answers it gave and closes) and waits for it.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Every answered request so far in the double's log at `path`.
    static func records(atPath path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// A running push-service double (`APNsDouble`, `FCMDouble`): its process, port and log, stopped
/// when the test lets go of it.
class PushDouble {
    let process: Process
    let port: Int
    let logPath: String

    /// Launches `script` (named `name` in a skip) on `port` (0: any) with the TLS certificate and
    /// key in `material` (Scripts/apns-double/make-certs), `arguments` and `--log logPath`.
    init(_ name: String, script: URL, logPath: String, material: URL, port: Int, arguments: [String]) throws {
        self.logPath = logPath
        let launched = try DoubleProcess.launch(name, script: script, arguments: [
            "--port", String(port),
            "--cert", material.appendingPathComponent("server.pem").path,
            "--key", material.appendingPathComponent("server.key").path,
            "--log", logPath,
        ] + arguments)
        process = launched.process
        self.port = launched.port
    }

    deinit { stop() }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Stops the double (SIGTERM: it flushes the answers it gave and closes) and waits for it.
    func stop() { DoubleProcess.stop(process) }

    /// Every answered request so far, as the double logged it.
    func records() -> [[String: Any]] { DoubleProcess.records(atPath: logPath) }
}
