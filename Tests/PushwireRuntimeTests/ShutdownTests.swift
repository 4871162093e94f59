#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushwireWire
import XCTest
@testable import PushwireRuntime

final class ShutdownTests: XCTestCase {
    func testGracefulShutdownLetsCallsInFlightFinish() throws {
        let (server, address) = try startTestServer { $0.drainTimeout = .seconds(5) }
        let client = try TestClient(address)
        let slow = try client.start(TestMethods.sleep.path, TestMethods.request("300"))
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        let last = slow + 1
        server.beginShutdown()
        XCTAssertTrue(server.isDraining)
        let frames = try client.readUntilClosed()
        guard case .goAway(let goAway)? = frames.first?.kind else { return XCTFail("expected a GoAway first, got \(frames)") }
        XCTAssertEqual(goAway.lastCallID, last)
        XCTAssertEqual(goAway.status?.code, StatusCode.ok.rawValue)
        let responses = frames.compactMap { frame -> (UInt32, UInt32)? in
            if case .response(let response)? = frame.kind { return (frame.callID, response.status?.code ?? 99) }
            return nil
        }
        XCTAssertEqual(responses.map(\.0), [slow])
        XCTAssertEqual(responses.map(\.1), [0])
        server.waitUntilStopped()
        // The listener is closed.
        XCTAssertThrowsError(try TestClient(address))
    }

    func testDrainTimeoutBoundsTheShutdown() throws {
        let (server, address) = try startTestServer { $0.drainTimeout = .milliseconds(200) }
        let client = try TestClient(address)
        try client.start(TestMethods.sleep.path, TestMethods.request("5000"))
        // Answered only once the sleep call before it was read and started: a connection's frames
        // are handled in order.
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        let started = TestClient.now()
        server.beginShutdown()
        server.waitUntilStopped()
        XCTAssertLessThan(TestClient.now() - started, 2)
        _ = try? client.readUntilClosed()
    }

    func testCallsAfterGoAwayAreUnavailable() throws {
        let (server, address) = try startTestServer { $0.drainTimeout = .seconds(5) }
        defer { server.waitUntilStopped() }
        let client = try TestClient(address)
        try client.start(TestMethods.sleep.path, TestMethods.request("300"))
        // The sleep call is in flight once this later call is answered (frames are handled in order).
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        server.beginShutdown()
        guard case .goAway? = try client.readFrame()?.kind else { return XCTFail("expected a GoAway") }
        let late = try client.start(Methods.Health.check.path, TestMethods.request(""))
        var codes: [UInt32: StatusCode] = [:]
        for _ in 0..<2 {
            let response = try client.readResponse()
            codes[response.callID] = response.code
        }
        XCTAssertEqual(codes[late], .unavailable)
        XCTAssertEqual(codes[1], .ok)
    }
}

/// `pushwired` as a subprocess: arguments, the printed address, signals and exit codes.
final class PushwiredProcessTests: XCTestCase {
    var executable: URL!

    override func setUpWithError() throws {
        executable = try pushwiredExecutable()
    }

    struct Running {
        let process: Process
        let address: SocketAddress
        let output: Pipe
    }

    func launch(_ arguments: [String]) throws -> Running {
        let started = try PushwiredProcess.launch(executable: executable, arguments: arguments,
                                                  standardError: FileHandle.nullDevice, timeout: 10)
        return Running(process: started.process, address: try SocketAddress(parsing: started.address), output: started.output)
    }

    func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "pushwired-test-\(UUID().uuidString)"
        return path
    }

    /// pushwired allocates through jemalloc, linked into the executable (Sources/Pushwired/Allocator.swift):
    /// its startup log names the allocator that `malloc` resolves to for the whole process.
    func testMallocIsJemalloc() throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory]
        let log = Pipe()
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !text.contains("memory allocator") {
            let chunk = log.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = text.split(separator: "\n").first { $0.contains("memory allocator") }
        XCTAssertTrue(line?.contains("allocator=\"jemalloc ") ?? false, "pushwired's log: \(text)")
    }

    func testUsageErrorsExit64() throws {
        for arguments in [["--bogus"], ["--listen", "nowhere"], ["--threads", "0"], ["--threads"]] {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 64, "\(arguments)")
        }
    }

    func testConfigFileWithFlagsOverriding() throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let configPath = dataDirectory + "/pushwired.conf"
        try """
            # pushwired settings
            listen = 127.0.0.1:0
            max-frame-size = 2048
            idle-timeout = 90s
            admin-token = from-the-file
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
        let running = try launch(["--config", configPath, "--max-frame-size", "4096", "--data-dir", dataDirectory])
        defer {
            kill(running.process.processIdentifier, SIGTERM)
            running.process.waitUntilExit()
        }
        let settings = try XCTUnwrap(TestClient(running.address).settings)
        XCTAssertEqual(settings.maxFrameSize, 4096)
        XCTAssertEqual(settings.idleTimeoutMS, 90_000)
        // The token came from the file, so none was generated.
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory + "/admin-token"))
    }

    func testHelpAndVersionExitZero() throws {
        for argument in ["--help", "--version"] {
            let process = Process()
            process.executableURL = executable
            process.arguments = [argument]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            XCTAssertTrue(text.contains("pushwired"), text)
        }
    }

    func testSIGTERMDrainsAndExitsZero() throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let running = try launch(["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--threads", "2"])
        // The generated admin token is private to its owner.
        let attributes = try FileManager.default.attributesOfItem(atPath: dataDirectory + "/admin-token")
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)

        let client = try TestClient(running.address)
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        kill(running.process.processIdentifier, SIGTERM)
        let frames = try client.readUntilClosed()
        guard case .goAway(let goAway)? = frames.first?.kind else { return XCTFail("expected a GoAway, got \(frames)") }
        XCTAssertEqual(goAway.lastCallID, 1)
        running.process.waitUntilExit()
        XCTAssertEqual(running.process.terminationStatus, 0)
    }

    func testSecondSignalExitsAtOnce() throws {
        let dataDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let running = try launch(["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--drain-timeout", "30s"])
        // A client that neither closes nor reads: after its GoAway the server waits (up to 2 s)
        // for it to close, so the drain is still going when the second signal comes.
        let client = try TestClient(running.address)
        try client.start("/pushwire.v1.Nope/Nothing")
        kill(running.process.processIdentifier, SIGINT)
        // The first signal was taken once the drain's GoAway arrives.
        var sawGoAway = false
        while !sawGoAway, let frame = try client.readFrame() {
            if case .goAway? = frame.kind { sawGoAway = true }
        }
        XCTAssertTrue(sawGoAway, "the first SIGINT started the drain")
        let started = Date()
        kill(running.process.processIdentifier, SIGINT)
        running.process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertEqual(running.process.terminationStatus, 1)
        _ = client
    }
}

/// Health while draining: not observable over a connection (after its GoAway new calls are
/// UNAVAILABLE and the listener is closed), so the built-in handler is called directly.
final class HealthWhileDrainingTests: XCTestCase {
    func testHealthIsNotServingWhileDraining() throws {
        let reference = SharedReference()
        let methods = BuiltinServices.adding(to: [:], state: reference)
        let table = MethodTable(methods)
        let shared = ServerShared(configuration: ServerConfiguration(), table: table, logger: Logger(label: "test"))
        reference.shared = shared
        guard case .onLoop(let handler)? = table.methods[Methods.Health.check.path]?.handler else {
            return XCTFail("Health/Check should run on the loop")
        }
        let context = RequestContext(
            callID: 1, method: Methods.Health.check.path, metadata: [],
            peer: try SocketAddress(parsing: "127.0.0.1:1"), arrivalNanos: 0, deadlineNanos: nil, cancellation: nil)
        func status(_ service: String) throws -> ServingStatus {
            try HealthCheckResponse(decoding: handler(context, TestMethods.request(service)).body).status
        }
        XCTAssertEqual(try status(""), .serving)
        XCTAssertEqual(try status("pushwire.v1.Reflection"), .serving)
        shared.draining.store(true, ordering: .relaxed)
        XCTAssertEqual(try status(""), .notServing)
        XCTAssertEqual(try status("pushwire.v1.Reflection"), .notServing)
        XCTAssertEqual(try status("pushwire.v1.Nope"), .serviceUnknown)
    }
}
