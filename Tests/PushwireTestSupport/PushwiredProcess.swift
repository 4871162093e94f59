import XCTest
import Foundation
import Glibc

/// A `pushwired` subprocess on 127.0.0.1 port 0 with a data directory of its own, for tests that
/// need the real server binary (its flags, files, signals and logs). `stop()` (SIGTERM, then wait)
/// must be called; the data directory is removed by `remove()`.
public final class PushwiredProcess {
    /// pushwired exited or said nothing before reporting its address.
    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    public let process: Process
    public let dataDirectory: URL
    /// `host:port` from its "listening on" line.
    public private(set) var address = ""
    /// Every line it printed on stdout before "listening on" (e.g. "admin token: …").
    public private(set) var startupLines: [String] = []
    private let stderrFile: URL

    /// A fresh temporary data directory.
    public static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `pushwired --listen 127.0.0.1:0 --data-dir <dir> <arguments>` and waits (≤ 30 s)
    /// for its address. Its stderr (the log) is kept in a file `log()` reads.
    public init(dataDirectory: URL, arguments: [String], environment: [String: String]? = nil) throws {
        self.dataDirectory = dataDirectory
        stderrFile = dataDirectory.deletingLastPathComponent().appendingPathComponent("\(dataDirectory.lastPathComponent).stderr")
        // O_APPEND: every line goes to the end, whatever else holds the file open.
        let fd = open(stderrFile.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StartFailure(description: "cannot create \(stderrFile.path): errno \(errno)") }
        let stderrFile = self.stderrFile
        let launched: Launched
        do {
            launched = try Self.launch(arguments: ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory.path] + arguments,
                                       environment: environment, standardError: FileHandle(fileDescriptor: fd, closeOnDealloc: true))
        } catch let failure as StartFailure {
            // A failure, not a skip: every test using this helper needs the server to start.
            let log = (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
            throw StartFailure(description: "\(failure.description) \(log)")
        }
        process = launched.process
        address = launched.address
        startupLines = launched.lines
    }

    /// A pushwired started by `launch` that reported its address.
    public struct Launched {
        public let process: Process
        /// `host:port` from its "listening on" line.
        public let address: String
        /// Every line it printed on stdout up to "listening on".
        public let lines: [String]
        /// Its stdout, read up to the end of the chunk that held "listening on" (`lines`).
        public let output: Pipe
        /// The port of `address`.
        public var port: UInt16 { address.split(separator: ":").last.flatMap { UInt16($0) } ?? 0 }
    }

    /// The one way the tests start a pushwired process: `executable` (the built pushwired unless
    /// given: an installed copy, say) with `arguments` (the caller's `--listen 127.0.0.1:0` among
    /// them), its stdout read until the `listening on` line (at most `timeout` seconds).
    ///
    /// - Parameters:
    ///   - environment: added to this process's environment.
    ///   - standardError: where its log goes (nil: this process's stderr).
    /// - Throws: `StartFailure` with what it printed when it exited or said nothing first (the
    ///   process is then ended and waited for).
    public static func launch(executable: URL? = nil, arguments: [String], environment: [String: String]? = nil,
                              standardError: Any? = nil, timeout: TimeInterval = 30) throws -> Launched {
        let process = Process()
        process.executableURL = try executable ?? pushwiredExecutable()
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        let out = Pipe()
        process.standardOutput = out
        if let standardError { process.standardError = standardError }
        try process.run()
        let startup = awaitAddress(on: out, timeout: timeout)
        guard let address = startup.address else {
            process.terminate()
            process.waitUntilExit()
            throw StartFailure(description: "pushwired did not report its address: \(startup.lines.joined(separator: "\n"))")
        }
        return Launched(process: process, address: address, lines: startup.lines, output: out)
    }

    /// Reads a starting pushwired's standard output until its `listening on HOST:PORT` line (the
    /// one every launch waits for), at most `timeout` seconds or until it closes its output.
    /// - Returns: the address (nil when the line never came) and the lines printed up to it.
    public static func awaitAddress(on output: Pipe, timeout: TimeInterval) -> (address: String?, lines: [String]) {
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            // Only whole lines: a chunk may end inside the address.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            if let line = lines.first(where: { $0.hasPrefix("listening on ") }) {
                return (String(line.dropFirst("listening on ".count)), lines)
            }
        }
        return (nil, text.split(separator: "\n").map(String.init))
    }

    /// What it logged on stderr so far.
    public func log() -> String {
        (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` (e.g. SIGHUP).
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (≤ `timeout`) until the log holds `text`.
    public func waitForLog(_ text: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log().contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// SIGTERM, then waits for it to exit; returns its exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Removes the data directory and the log file.
    public func remove() {
        try? FileManager.default.removeItem(at: dataDirectory)
        try? FileManager.default.removeItem(at: stderrFile)
    }
}
