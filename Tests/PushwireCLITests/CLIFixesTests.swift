import XCTest
import Foundation
import PushwireWire
@testable import pushwire

/// The command-line fixes of issue 21, item 1, checked without a server: one meaning for
/// `--token`, `device track`, `message cancel`, the server address as a usage error, help pages
/// that point at the global options instead of repeating them, and the admin token found through
/// the data directory.
final class CLIFixesTests: XCTestCase {
    private func operation(_ arguments: [String], environment: [String: String] = [:]) throws -> (GroupCommand, GlobalOptions) {
        let invocation = try Invocation.parse(arguments, environment: environment)
        guard case .operation(let command) = invocation.command else {
            XCTFail("not a group command: \(invocation.command)")
            throw XCTSkip()
        }
        return (command, invocation.options)
    }

    private func usageError(_ arguments: [String], environment: [String: String] = ["PUSHWIRE_TOKEN": "t"]) -> String {
        do {
            let invocation = try Invocation.parse(arguments, environment: environment)
            XCTFail("\(arguments) parsed as \(invocation.command)")
            return ""
        } catch {
            return error.message
        }
    }

    /// `--token` is the bearer token everywhere; in `device register` it is no longer the push token.
    func testTokenIsNeverThePushToken() throws {
        let (command, options) = try operation(["device", "register", "--app", "A", "--hwid", "h", "--token", "bearer-1"])
        guard case .registerDevice(let request) = command else { return XCTFail("\(command)") }
        XCTAssertEqual(request.pushToken, "")
        XCTAssertEqual(options.token, "bearer-1")
        guard case .registerDevice(let withPush) = try operation(["device", "register", "--app", "A", "--hwid", "h", "--push-token", "ab01"]).0 else {
            return XCTFail()
        }
        XCTAssertEqual(withPush.pushToken, "ab01")
    }

    func testDeviceTrack() throws {
        var open = TrackActionRequest()
        open.application = "A"
        open.hwid = "h"
        open.messageCode = "M-1"
        open.kind = .open
        XCTAssertEqual(try operation(["device", "track", "--app", "A", "--hwid", "h", "--message", "M-1"]).0, .trackAction(open))

        var tap = open
        tap.kind = .button
        tap.buttonID = 1
        tap.categoryID = 65
        tap.textInput = "see you"
        XCTAssertEqual(try operation(["device", "track", "--app", "A", "--hwid", "h", "--message", "M-1", "--button", "1",
                                      "--category", "65", "--text", "see you"]).0, .trackAction(tap))

        XCTAssertEqual(usageError(["device", "track", "--app", "A", "--hwid", "h"]), "missing --message")
        XCTAssertTrue(usageError(["device", "track", "--app", "A", "--hwid", "h", "--message", "M", "--button", "0"]).hasPrefix("a button tap needs --category"))
        XCTAssertEqual(usageError(["device", "track", "--app", "A", "--hwid", "h", "--message", "M", "--button", "yes", "--category", "65"]),
                       "--button expects the button's id (0, 1, …), got 'yes'")
        XCTAssertEqual(usageError(["device", "track", "--app", "A", "--hwid", "h", "--message", "M", "--text", "x"]),
                       "--category and --text describe a button tap: give --button too")
        XCTAssertEqual(usageError(["device", "track", "--app", "A", "--hwid", "h", "--message", "M", "--tag", "x=y"]),
                       "'device track' does not take --tag")
    }

    /// The top-level help says `message` cancels scheduled messages: `message cancel` does, and
    /// `message delete` stays as another name.
    func testMessageCancelAndDeleteAgree() throws {
        var request = DeleteMessageRequest()
        request.messageCode = "M-1"
        XCTAssertEqual(try operation(["message", "cancel", "M-1"], environment: ["PUSHWIRE_TOKEN": "t"]).0, .deleteMessage(request))
        XCTAssertEqual(try operation(["message", "delete", "M-1"], environment: ["PUSHWIRE_TOKEN": "t"]).0, .deleteMessage(request))
        XCTAssertTrue(Help.overview.contains("cancel scheduled ones"))
        XCTAssertTrue(Help.text(for: "message").contains("cancel    cancel a scheduled message"))
    }

    /// `pushwire health --server 127.0.0.1` (no port) is a usage error, not a failed connection.
    func testMalformedServerIsAUsageError() throws {
        XCTAssertEqual(usageError(["health", "--server", "127.0.0.1"]), "--server: invalid address '127.0.0.1': expected host:port")
        XCTAssertEqual(usageError(["device", "register", "--app", "A", "--hwid", "h", "--server", "[::1:7355"]),
                       "--server: invalid address '[::1:7355': missing ']'")
        XCTAssertEqual(usageError(["health"], environment: ["PUSHWIRE_SERVER": "localhost:http"]),
                       "--server: invalid address 'localhost:http': bad port 'http'")
        // Commands that connect nowhere do not care.
        XCTAssertEqual(try Invocation.parse(["methods", "--local", "--server", "nonsense"], environment: [:]).command, .methods(local: true))
    }

    func testSubcommandHelpPointsAtTheGlobalOptions() {
        for topic in ["health", "call", "app create", "device register", "device track", "message send", "demo"] {
            let text = Help.text(for: topic)
            XCTAssertFalse(text.contains("GLOBAL OPTIONS"), topic)
            XCTAssertTrue(text.contains("see 'pushwire --help'"), topic)
        }
        XCTAssertTrue(Help.overview.contains("GLOBAL OPTIONS"))
        XCTAssertTrue(Help.overview.contains("--data-dir <path>"))
    }

    /// The admin token is read from `<data-dir>/admin-token`, the data directory named by
    /// `--data-dir` or `$PUSHWIRE_DATA_DIR`, whatever the working directory.
    func testAdminTokenFromTheDataDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushwire-cli-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("from-the-file\n".utf8).write(to: directory.appendingPathComponent("admin-token"))

        let flag = try Invocation.parse(["app", "list", "--data-dir", directory.path], environment: [:])
        XCTAssertEqual(try Session.adminToken(flag.options, command: "app"), "from-the-file")
        let environment = try Invocation.parse(["app", "list"], environment: ["PUSHWIRE_DATA_DIR": directory.path])
        XCTAssertEqual(try Session.adminToken(environment.options, command: "app"), "from-the-file")
        // --admin-token and $PUSHWIRE_ADMIN_TOKEN come first.
        let given = try Invocation.parse(["app", "list", "--data-dir", directory.path, "--admin-token", "given"], environment: [:])
        XCTAssertEqual(try Session.adminToken(given.options, command: "app"), "given")

        let empty = try Invocation.parse(["app", "list", "--data-dir", directory.appendingPathComponent("none").path], environment: [:])
        XCTAssertThrowsError(try Session.adminToken(empty.options, command: "app")) { error in
            XCTAssertTrue((error as? UsageError)?.message.contains("--data-dir") ?? false, "\(error)")
        }
    }
}
