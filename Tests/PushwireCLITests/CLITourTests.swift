import XCTest
import Foundation

/// README's hand-run tour, command for command, against a real `pushwired`: it ends with the tap
/// reported by `pushwire device track` showing in `message details`. Also the warning for a
/// device registered without a push token (at registration and in `message send`), and the bench's refusal to write beside real data.
final class CLITourTests: XCTestCase {
    private func pushwire(_ arguments: [String], _ server: PushwiredProcess, token: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> ExecutableRun {
        var environment = ["PUSHWIRE_SERVER": server.address, "PUSHWIRE_DATA_DIR": server.dataDirectory.path]
        if let token { environment["PUSHWIRE_TOKEN"] = token }
        let result = try runExecutable("pushwire", arguments + ["--timeout", "30"], environment: environment)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        return result
    }

    private func value(after prefix: String, in text: String) -> String? {
        text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }).map { String($0.dropFirst(prefix.count)) }
    }

    func testReadmeTourEndsWithTheTap() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwire-tour")
        let server = try PushwiredProcess(dataDirectory: directory, arguments: ["--log-level", "warning"])
        defer { server.stop(); server.remove() }

        // The admin token comes from $PUSHWIRE_DATA_DIR/admin-token, written by pushwired.
        let created = try pushwire(["app", "create", "--name", "My app"], server)
        let code = try XCTUnwrap(created.stdout.split(separator: " ").dropFirst(2).first.map(String.init), created.stdout)
        let token = try XCTUnwrap(value(after: "access token: ", in: created.stdout), created.stdout)

        let registered = try pushwire(["device", "register", "--app", code, "--hwid", "phone-1", "--push-token", "3f2a9c",
                                       "--language", "fr", "--tag", "plan=gold"], server, token: token)
        XCTAssertFalse(registered.stderr.contains("warning"), registered.stderr)
        _ = try pushwire(["category", "upsert", "--name", "Feedback", "--button", "Love it:foreground,fr=Super", "--button", "Meh:destructive"],
                         server, token: token)
        let listed = try pushwire(["category", "list"], server, token: token)
        XCTAssertTrue(listed.stdout.contains("Feedback: Love it"), listed.stdout)
        let synced = try pushwire(["category", "sync", "--app", code, "--known-version", "2"], server, token: token)
        XCTAssertTrue(synced.stdout.contains("not modified"), synced.stdout)
        let sent = try pushwire(["message", "send", "--content", "Do you like it?", "--category", "YesNo", "--device", "phone-1",
                                 "--language-content", "fr=Vous aimez ?"], server, token: token)
        let message = try XCTUnwrap(value(after: "message ", in: sent.stdout), sent.stdout)

        var details = try pushwire(["message", "details", message], server, token: token)
        let deadline = Date().addingTimeInterval(30)
        while !details.stdout.contains(": done"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            details = try pushwire(["message", "details", message], server, token: token)
        }
        XCTAssertTrue(details.stdout.contains("sent:      1"), details.stdout)
        let category = try XCTUnwrap(value(after: "  category:  ", in: details.stdout), details.stdout)

        let tapped = try pushwire(["device", "track", "--app", code, "--hwid", "phone-1", "--message", message, "--button", "0",
                                   "--category", category], server, token: token)
        XCTAssertTrue(tapped.stdout.hasPrefix("recorded a tap of button 0"), tapped.stdout)
        let opened = try pushwire(["device", "track", "--app", code, "--hwid", "phone-1", "--message", message], server, token: token)
        XCTAssertTrue(opened.stdout.hasPrefix("recorded an open"), opened.stdout)
        let again = try pushwire(["device", "track", "--app", code, "--hwid", "phone-1", "--message", message], server, token: token)
        XCTAssertTrue(again.stdout.hasPrefix("already recorded"), again.stdout)

        let final = try pushwire(["message", "details", message], server, token: token)
        XCTAssertTrue(final.stdout.contains("opened:    1"), final.stdout)
        XCTAssertTrue(final.stdout.contains("Yes (button 0): 1"), final.stdout)

        // A device without a push token is stored, and the user is told it is never sent anything.
        let tokenless = try pushwire(["device", "register", "--app", code, "--hwid", "phone-2"], server)
        XCTAssertTrue(tokenless.stderr.contains("warning: phone-2 has no push token (--push-token)"), tokenless.stderr)
        // ... and `message send` says so too, beside the unknown hwids, each time (phone-1 is
        // cached as having a token; phone-2 is read again and still has none).
        for _ in 0..<2 {
            let warned = try pushwire(["message", "send", "--content", "Hi", "--device", "phone-1", "--device", "phone-2",
                                       "--device", "ghost"], server, token: token)
            XCTAssertTrue(warned.stdout.contains("devices without a push token (not targeted): phone-2\n"), warned.stdout)
            XCTAssertTrue(warned.stdout.contains("unknown devices (not targeted): ghost\n"), warned.stdout)
        }
        let plain = try pushwire(["message", "send", "--content", "Hi", "--device", "phone-1"], server, token: token)
        XCTAssertFalse(plain.stdout.contains("not targeted"), plain.stdout)
    }

    /// `pushwire-bench` writing beside an application that is not its own needs `--yes`; on a
    /// server holding only bench applications it runs without (as `Scripts/bench` does).
    func testBenchNeedsYesBesideRealData() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwire-bench-guard")
        let server = try PushwiredProcess(dataDirectory: directory, arguments: ["--log-level", "warning"])
        defer { server.stop(); server.remove() }
        let register = ["register", "--server", server.address, "--data-dir", directory.path, "--requests", "20", "--warmup", "0s",
                        "--connections", "1", "--concurrency", "2"]

        let fresh = try runExecutable("pushwire-bench", register)
        XCTAssertEqual(fresh.status, 0, fresh.stderr)

        let created = try runExecutable("pushwire", ["app", "create", "--name", "Real shop", "--server", server.address, "--data-dir", directory.path])
        XCTAssertEqual(created.status, 0, created.stderr)
        let refused = try runExecutable("pushwire-bench", register)
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("'Real shop'") && refused.stderr.contains("pass --yes"), refused.stderr)

        let code = try XCTUnwrap(created.stdout.split(separator: " ").dropFirst(2).first.map(String.init))
        let intoReal = try runExecutable("pushwire-bench", register + ["--application", code])
        XCTAssertEqual(intoReal.status, 64, intoReal.stderr)
        XCTAssertTrue(intoReal.stderr.contains("in application \(code)"), intoReal.stderr)

        let confirmed = try runExecutable("pushwire-bench", register + ["--yes"])
        XCTAssertEqual(confirmed.status, 0, confirmed.stderr)
    }
}
