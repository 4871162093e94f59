import XCTest
import Foundation
import PushwireWire
@testable import PushwireClient

/// Runs the built `pushwire` binary as a subprocess.
final class CLITests: XCTestCase {
    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ExecutableRun {
        try runExecutable("pushwire", arguments, environment: environment)
    }

    func testHelpAndVersion() throws {
        let help = try run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("USAGE: pushwire"))
        XCTAssertTrue(help.stdout.contains("EXIT CODES"))
        for command in ["health", "methods", "call", "ping"] {
            let sub = try run([command, "--help"])
            XCTAssertEqual(sub.status, 0, command)
            XCTAssertTrue(sub.stdout.contains("USAGE: pushwire \(command)"), command)
        }
        let version = try run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("pushwire "))
    }

    func testUsageErrorsExit64() throws {
        for arguments in [[], ["--bogus"], ["frobnicate"], ["call"], ["call", "Devices/Nope"], ["health", "--data", "{}"],
                          ["call", "Devices/RegisterDevice", "--data", #"{"hwidd":"x"}"#], ["call", "Health/Check", "--data", "{"],
                          ["health", "--timeout", "-1"]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("error:"), "\(arguments)")
        }
        let unknownKey = try run(["call", "Devices/RegisterDevice", "--data", #"{"hwidd":"x"}"#])
        XCTAssertTrue(unknownKey.stderr.contains(#"unknown field "hwidd""#), unknownKey.stderr)
    }

    func testUnreachableServerExits1() throws {
        let result = try run(["health", "--timeout", "2"], environment: ["PUSHWIRE_SERVER": "127.0.0.1:1"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.hasPrefix("UNAVAILABLE: "), result.stderr)
    }

    func testCallAgainstFakeServer() throws {
        let register = try XCTUnwrap(MethodCatalog.find("Devices/RegisterDevice"))
        let reply = try ProtoJSON.encode(#"{"categoriesVersion":"7","iosCategories":[{"categoryId":"65","name":"YesNo"}]}"#, as: register.responseDescriptor)
        let server = try FakeServer { peer, request in
            if request.metadata["authorization"] != "Bearer tok" {
                peer.respond(request.callID, code: .unauthenticated, message: "missing token")
            } else if request.message.isEmpty {
                peer.respond(request.callID, code: .notFound, message: "device not found")
            } else {
                peer.respond(request.callID, body: reply)
            }
        }
        defer { server.stop() }
        let ok = try run(["call", "pushwire.v1.Devices.RegisterDevice", "--server", server.address, "--json",
                          "--data", #"{"hwid":"h1","device_type":"IOS"}"#], environment: ["PUSHWIRE_TOKEN": "tok"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let printed = try ProtoJSON.parse(ok.stdout)
        XCTAssertEqual(printed, try ProtoJSON.decode(reply, as: register.responseDescriptor))
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(sent.method, "/pushwire.v1.Devices/RegisterDevice")
        XCTAssertEqual(try ProtoJSON.decode(sent.message, as: register.requestDescriptor),
                       .object([("hwid", .string("h1")), ("deviceType", .string("DEVICE_TYPE_IOS"))]))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pushwire-cli-\(getpid()).json")
        try Data(#"{"hwid":"from-file"}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try run(["call", "Devices/RegisterDevice", "--server", server.address, "--token", "tok", "--data", "@\(file.path)"])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertEqual(try ProtoJSON.decode(try XCTUnwrap(server.requests.last).message, as: register.requestDescriptor),
                       .object([("hwid", .string("from-file"))]))

        let missing = try run(["call", "Devices/RegisterDevice", "--server", server.address, "--token", "tok"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "NOT_FOUND: device not found\n")

        let unauthenticated = try run(["call", "Devices/RegisterDevice", "--server", server.address, "--json", "--data", #"{"hwid":"x"}"#])
        XCTAssertEqual(unauthenticated.status, 1)
        XCTAssertEqual(try ProtoJSON.parse(unauthenticated.stdout), .object([("error", .object([
            ("code", .number("16")), ("status", .string("UNAUTHENTICATED")), ("message", .string("missing token"))]))]))
    }

    /// The categories version has one name in the CLI's JSON, whichever method answered:
    /// `categoriesVersion` (RegisterDevice's), though SyncCategories calls it `version` on the wire.
    func testTheCategoriesVersionHasOneNameInTheJSONOutput() throws {
        let register = try XCTUnwrap(MethodCatalog.find("Devices/RegisterDevice"))
        let sync = try XCTUnwrap(MethodCatalog.find("Devices/SyncCategories"))
        let registered = try ProtoJSON.encode(#"{"categoriesVersion":"7","categoriesNotModified":true}"#, as: register.responseDescriptor)
        let synced = try ProtoJSON.encode(#"{"notModified":true,"version":"7"}"#, as: sync.responseDescriptor)
        let server = try FakeServer { peer, request in
            peer.respond(request.callID, body: request.method.hasSuffix("/SyncCategories") ? synced : registered)
        }
        defer { server.stop() }
        var printed: [[String: JSONValue]] = []
        for arguments in [["device", "register", "--app", "A1B2C-3D4E5", "--hwid", "h1", "--push-token", "ab01"],
                          ["category", "sync", "--app", "A1B2C-3D4E5", "--known-version", "7"]] {
            let result = try run(arguments + ["--server", server.address, "--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            guard case .object(let members) = try ProtoJSON.parse(result.stdout) else { return XCTFail(result.stdout) }
            printed.append(Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }))
        }
        for object in printed {
            XCTAssertEqual(object["categoriesVersion"], .string("7"), "\(object)")
            XCTAssertEqual(object["categoriesNotModified"], .bool(true), "\(object)")
            XCTAssertNil(object["version"])
        }
        // `pushwire call` prints the wire's own names.
        let raw = try run(["call", "Devices/SyncCategories", "--server", server.address, "--data", #"{"application":"A1B2C-3D4E5"}"#, "--json"])
        XCTAssertEqual(raw.status, 0, raw.stderr)
        guard case .object(let members) = try ProtoJSON.parse(raw.stdout) else { return XCTFail(raw.stdout) }
        XCTAssertTrue(members.contains { $0.key == "version" }, raw.stdout)
    }
}
