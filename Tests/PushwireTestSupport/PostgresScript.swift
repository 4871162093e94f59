import Foundation
import XCTest

/// The URL of the test run's PostgreSQL (`Scripts/test` starts one and exports it), or a skip
/// with a loud message when it is not set (CI always sets it).
public func testDatabaseURL() throws -> String {
    guard let url = ProcessInfo.processInfo.environment["PUSHWIRE_TEST_DATABASE_URL"], !url.isEmpty else {
        let message = "PUSHWIRE_TEST_DATABASE_URL is not set: PostgreSQL tests SKIPPED (run Scripts/test, or Scripts/postgres start and export the URL)"
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
        throw XCTSkip(message)
    }
    return url
}

/// Runs a command of `Scripts/postgres` and returns its output's lines.
@discardableResult
public func postgresScript(_ arguments: [String]) throws -> [String] {
    let root = repositoryRoot()
    let script = root.appendingPathComponent("Scripts/postgres").path
    // Output to a file, and posix_spawn + waitpid rather than Foundation's Process: the server
    // the script starts would inherit a pipe and hold it open, and Process did not see the
    // script exit while an XCTest async test waited.
    let outputPath = NSTemporaryDirectory() + "pushwire-pg-script-\(UInt32.random(in: 0...UInt32.max))"
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    let argv = ([script] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, script, &actions, nil, argv, environ)
    guard spawned == 0 else { throw PostgresScriptError(message: "cannot run \(script): errno \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let output = FileManager.default.contents(atPath: outputPath) ?? Data()
    // WIFEXITED && WEXITSTATUS == 0
    guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
        throw PostgresScriptError(message: "Scripts/postgres \(arguments.joined(separator: " ")) failed (wait status \(status))")
    }
    return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
}

/// `Scripts/postgres` failed.
public struct PostgresScriptError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The repository's root directory (the one holding Package.swift and Scripts/), found from this
/// file's path at build time.
public func repositoryRoot() -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
