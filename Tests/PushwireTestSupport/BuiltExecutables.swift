import Foundation
import XCTest

/// The executables of this package built next to the test bundle (`pushwired`, `pushwire`,
/// `pushwire-bench`), for the suites that run them as subprocesses; one lookup for every suite.
/// `PUSHWIRED` names another pushwired (the probes measure a release build that way).
/// - Throws: `XCTSkip` when the executable was not built (run `swift build` first).
public func builtExecutable(_ name: String) throws -> URL {
    if name == "pushwired", let path = ProcessInfo.processInfo.environment["PUSHWIRED"], !path.isEmpty {
        return URL(fileURLWithPath: path)
    }
    let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // The bundle's own directory, its parent (XCTest runs from inside the .xctest bundle on
    // Linux), and the directory of any .xctest argument (when a runner loads the bundle).
    var candidates = [bundleDirectory, bundleDirectory.deletingLastPathComponent()]
    for argument in CommandLine.arguments where argument.hasSuffix(".xctest") {
        candidates.append(URL(fileURLWithPath: argument).deletingLastPathComponent())
    }
    for directory in candidates {
        let url = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw XCTSkip("the \(name) binary was not built next to the tests (\(bundleDirectory.path); run `swift build` first)")
}

/// The pushwired the process tests run: `$PUSHWIRED`, or the one built next to the tests.
public func pushwiredExecutable() throws -> URL { try builtExecutable("pushwired") }

/// How a finished subprocess ended, and what it printed.
public struct ExecutableRun: Sendable {
    /// Its exit status (or the signal that ended it).
    public var status: Int32
    /// Everything it wrote to standard output.
    public var stdout: String
    /// Everything it wrote to standard error.
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs one of the built executables (`name`) or any program (`executable`) to completion.
/// - Parameters:
///   - environment: its whole environment, plus `PATH=/usr/bin:/bin` unless given (so that a
///     developer's `PUSHWIRE_*` variables never reach a test).
///   - directory: its working directory.
///   - timeout: it is sent SIGTERM after this long, so a hung binary fails its test instead of the run.
public func runExecutable(_ name: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
                          timeout: TimeInterval = 120) throws -> ExecutableRun {
    try runProgram(try builtExecutable(name), arguments, environment: environment, directory: directory, timeout: timeout)
}

/// `runExecutable` for a program given by its path (an installed copy, a script).
public func runProgram(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
                       timeout: TimeInterval = 120) throws -> ExecutableRun {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    // A sanitizer run's options (Scripts/test-asan: detect_leaks=0) apply to the programs it runs too.
    let sanitizer = ProcessInfo.processInfo.environment.filter { $0.key == "ASAN_OPTIONS" }
    process.environment = environment.merging(["PATH": "/usr/bin:/bin"].merging(sanitizer) { given, _ in given }) { given, _ in given }
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    // Both pipes drained together: a child that fills one while we block on the other would hang.
    let group = DispatchGroup()
    nonisolated(unsafe) var stderr = Data()
    DispatchQueue.global().async(group: group) { stderr = err.fileHandleForReading.readDataToEndOfFile() }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    killer.cancel()
    return ExecutableRun(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self))
}
