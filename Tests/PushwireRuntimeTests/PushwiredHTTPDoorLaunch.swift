#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import PushwireRuntime

extension PushwiredProcessTests {
    /// Runs pushwired (loopback, port 0, `adminToken`), waits for its "HTTP listening on" line and
    /// calls `body` with that address. The process is stopped after, and killed if it has not
    /// finished within `watchdogSeconds` (bounded: the kill also ends the reads of its output; the
    /// watchdog is cancelled once done, so it can never hit a later process with the same id).
    func withPushwiredHTTPDoor(adminToken: String, watchdogSeconds: Int, _ body: (SocketAddress) throws -> Void) throws {
        try withPushwiredDoors(adminToken: adminToken, watchdogSeconds: watchdogSeconds) { _, http in try body(http) }
    }

    /// `withPushwiredHTTPDoor` that also gives the binary door's address (its "listening on" line).
    func withPushwiredDoors(adminToken: String, watchdogSeconds: Int, _ body: (SocketAddress, SocketAddress) throws -> Void) throws {
        try withPushwiredDoors(adminToken: adminToken, watchdogSeconds: watchdogSeconds, arguments: []) { rpc, http, _ in try body(rpc, http) }
    }

    /// `withPushwiredDoors` with more `arguments`; `body` also gets every line printed up to the
    /// HTTP door's (and the one after it, when the door has a clear-text listener) and stderr's path.
    func withPushwiredDoors(adminToken: String, watchdogSeconds: Int, arguments: [String],
                            _ body: (SocketAddress, SocketAddress, PushwiredOutput) throws -> Void) throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", adminToken] + arguments
        let output = Pipe()
        process.standardOutput = output
        let stderrPath = dataDirectory + ".stderr"
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: stderrPath) }
        process.standardError = FileHandle(forWritingAtPath: stderrPath) ?? FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(watchdogSeconds), execute: watchdog)
        defer {
            watchdog.cancel()
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        var text = ""
        var address: SocketAddress?
        var rpcAddress: SocketAddress?
        let wantsPlaintext = arguments.contains("--http-plaintext-listen")
        while address == nil || (wantsPlaintext && !text.contains("HTTP plaintext listening on ")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            // "listening on" comes first, then "HTTP listening on".
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                rpcAddress = try SocketAddress(parsing: String(line.dropFirst("listening on ".count)))
            }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("HTTP listening on ") }) {
                address = try SocketAddress(parsing: String(line.dropFirst("HTTP listening on ".count)))
            }
        }
        try body(try XCTUnwrap(rpcAddress, "no 'listening on' line in: \(text)"), try XCTUnwrap(address, "no 'HTTP listening on' line in: \(text)"),
                 PushwiredOutput(stdout: text, stderrPath: stderrPath, pid: pid))
    }
}

/// What a pushwired launched by `withPushwiredDoors` printed up to its HTTP door's line, and where
/// its stderr (the log) goes.
struct PushwiredOutput {
    var stdout: String
    var stderrPath: String
    /// Its process id.
    var pid: pid_t

    /// The address printed after `prefix` (e.g. "HTTP plaintext listening on "), if any.
    func address(after prefix: String) throws -> SocketAddress? {
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return try SocketAddress(parsing: String(line.dropFirst(prefix.count)))
    }

    /// The log so far.
    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}
