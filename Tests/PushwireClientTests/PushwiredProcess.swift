import XCTest
import Foundation
import Glibc

/// A `pushwired` subprocess on 127.0.0.1 port 0 with a data directory of its own, for tests that
/// need the real server binary (its flags, files, signals and logs). `stop()` (SIGTERM, then wait)
/// must be called; the data directory is removed by `remove()`.
final class PushwiredProcess {
    /// pushwired exited or said nothing before reporting its address.
    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    let process = Process()
    let dataDirectory: URL
    /// `host:port` from its "listening on" line.
    private(set) var address = ""
    /// Every line it printed on stdout before "listening on" (e.g. "admin token: …").
    private(set) var startupLines: [String] = []
    private let stderrPipe = Pipe()
    private let stderrFile: URL

    /// A fresh temporary data directory.
    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `pushwired --listen 127.0.0.1:0 --data-dir <dir> <arguments>` and waits (≤ 30 s)
    /// for its address. Its stderr (the log) is kept in a file `log()` reads.
    init(dataDirectory: URL, arguments: [String], environment: [String: String]? = nil) throws {
        self.dataDirectory = dataDirectory
        stderrFile = dataDirectory.deletingLastPathComponent().appendingPathComponent("\(dataDirectory.lastPathComponent).stderr")
        FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.executableURL = try CLIGroupCommandTests.executable("pushwired")
        process.arguments = ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory.path] + arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        let out = Pipe()
        process.standardOutput = out
        // O_APPEND: every line goes to the end, whatever else holds the file open.
        let fd = open(stderrFile.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw XCTSkip("cannot open \(stderrFile.path)") }
        process.standardError = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            if let line = lines.first(where: { $0.hasPrefix("listening on ") }) {
                address = String(line.dropFirst("listening on ".count))
                startupLines = lines
                return
            }
        }
        process.terminate()
        process.waitUntilExit()
        // A failure, not a skip: every test using this helper needs the server to start.
        throw StartFailure(description: "pushwired did not report its address: \(text) \(log())")
    }

    /// What it logged on stderr so far.
    func log() -> String {
        (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` (e.g. SIGHUP).
    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (≤ `timeout`) until the log holds `text`.
    func waitForLog(_ text: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log().contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// SIGTERM, then waits for it to exit; returns its exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Removes the data directory and the log file.
    func remove() {
        try? FileManager.default.removeItem(at: dataDirectory)
        try? FileManager.default.removeItem(at: stderrFile)
    }
}

/// Runs one of the built executables to completion and returns its status and output.
func runExecutable(_ name: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 120) throws -> CLIGroupCommandTests.Run {
    let process = Process()
    process.executableURL = try CLIGroupCommandTests.executable(name)
    process.arguments = arguments
    process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    killer.cancel()
    return CLIGroupCommandTests.Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                                    stderr: String(decoding: stderr, as: UTF8.self))
}
