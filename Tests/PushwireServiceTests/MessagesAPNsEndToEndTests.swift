import Foundation
import PushwireWire
import XCTest

/// Issue 7, item 6: pushwired and the APNs double (Scripts/apns-double) as real processes. A message
/// created over RPC reaches the double as Apple's provider API prescribes; each kind of APNs answer
/// has its documented effect in `GetMessageDetails`; a restart of the double in the middle of a
/// fan-out loses and duplicates nothing. `APNsDouble.swift` is shared with PushwireAPNsTests (a
/// symbolic link to Tests/PushwireAPNsTests/APNsDouble.swift).
final class MessagesAPNsEndToEndTests: XCTestCase {
    private typealias Server = PushDoubleServer

    private static let adminToken = "apns-e2e-admin"

    /// Starts pushwired against the double, trusting `caFile` (the double's CA by default).
    private func startServer(double: APNsDouble, caFile: String? = nil, dataDirectory: String? = nil) throws -> Server {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let dataDirectory = dataDirectory ?? Self.temporaryPath("pushwire-apns-e2e")
        let (process, port) = try CrashRecoveryTests.startServer(
            path, dataDirectory: dataDirectory, adminToken: Self.adminToken,
            extraArguments: ["--apns-url", double.baseURL, "--apns-ca-file", try caFile ?? APNsDouble.caFile()])
        return Server(process: process, client: try RawClient(port: port), dataDirectory: dataDirectory)
    }

    /// Creates an application whose APNs settings are the double's; returns (code, access token).
    private func createApplication(_ server: inout Server) throws -> (code: String, token: String) {
        var settings = ApnsSettings()
        settings.teamID = APNsDouble.teamID
        settings.keyID = APNsDouble.keyID
        settings.topic = APNsDouble.topic
        settings.privateKeyP8 = try APNsDouble.p8()
        settings.environment = .sandbox
        var request = CreateApplicationRequest()
        request.name = "apns-e2e"
        request.apns = settings
        let created = try server.call(Methods.Admin.createApplication, request, token: Self.adminToken)
        return (try XCTUnwrap(created.application?.code), created.accessToken)
    }

    /// Registers one iOS device per token (hwid `hw-<index>`), 64 calls in flight.
    private func register(_ tokens: [String], application: String, on server: inout Server) throws {
        try register(tokens.enumerated().map { (hwid: "hw-\($0.offset)", token: $0.element, type: DeviceType.ios, language: "en") },
                     application: application, on: &server)
    }

    private func upsertCategory(_ server: inout Server, token: String) throws -> UInt32 {
        var yes = Button(), no = Button()
        yes.id = 0
        yes.label = "Yes"
        no.id = 1
        no.label = "No"
        var category = PushwireWire.Category()
        category.name = "DinnerInvite"
        category.buttons = [yes, no]
        var request = UpsertCategoryRequest()
        request.category = category
        let stored = try server.call(Methods.Categories.upsertCategory, request, token: token)
        return try XCTUnwrap(stored.category?.categoryID)
    }

    private static func token(_ index: Int) -> String { String(format: "%064x", 0xE2E000 + index) }

    private static func deviceToken(of record: [String: Any]) -> String? {
        (record["path"] as? String).map { String($0.dropFirst("/3/device/".count)) }
    }

    private static func headers(of record: [String: Any]) -> [String: String] { record["headers"] as? [String: String] ?? [:] }

    private static func jsonObject(_ text: Substring) -> [String: Any]? {
        let padded = text + String(repeating: "=", count: (4 - text.count % 4) % 4)
        let base64 = padded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    // MARK: - The options

    /// Runs pushwired with `arguments` to its exit; returns the status and what it wrote.
    private func runPushwired(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = try runExecutable("pushwired", arguments, timeout: 60)
        return (run.status, run.stdout + run.stderr)
    }

    func testTheAPNsEndpointOptionsAreDocumentedAndChecked() async throws {
        let help = try runPushwired(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.output.contains("--apns-url <url>"), help.output)
        XCTAssertTrue(help.output.contains("--apns-ca-file <file>"), help.output)

        // Verification is never off: a plain-HTTP endpoint is a usage error.
        let plain = try runPushwired(["--apns-url", "http://127.0.0.1:8443"])
        XCTAssertEqual(plain.status, 64)
        XCTAssertTrue(plain.output.contains("--apns-url: 'http://127.0.0.1:8443' is not an https:// URL"), plain.output)

        // A CA file that cannot be loaded stops the start rather than every later delivery.
        let dataDirectory = NSTemporaryDirectory() + "pushwire-apns-opts-\(getpid())-\(UUID().uuidString.prefix(8))"
        let missing = try runPushwired(["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", Self.adminToken,
                                        "--apns-url", "https://127.0.0.1:8443", "--apns-ca-file", dataDirectory + "/no-such-ca.pem"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.output.contains("cannot load the APNs CA file"), missing.output)

        // So does one that is readable but holds no certificate: every application with APNs
        // settings would otherwise fail at its first message.
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let notPEM = dataDirectory + "/not-a-ca.pem"
        try Data("this is not a certificate\n".utf8).write(to: URL(fileURLWithPath: notPEM))
        let invalid = try runPushwired(["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", Self.adminToken,
                                        "--apns-url", "https://127.0.0.1:8443", "--apns-ca-file", notPEM])
        XCTAssertEqual(invalid.status, 1)
        XCTAssertTrue(invalid.output.contains("cannot load the APNs CA file"), invalid.output)
    }

    // MARK: - The requests

    func testAMessageReachesTheDoubleAsAppleSpecifies() async throws {
        let double = try APNsDouble()
        var server = try startServer(double: double)
        defer { server.stop() }
        let (code, token) = try createApplication(&server)
        let tokens = (0..<3).map(Self.token)
        try register(tokens, application: code, on: &server)
        let categoryID = try upsertCategory(&server, token: token)

        var first = PushwireWire.Notification()
        first.content = "Dinner at eight?"
        first.iosCategoryID = categoryID
        first.iosTTL = 3600
        first.iosCollapseID = "dinner-plans"
        first.iosInterruptionLevel = .passive
        let firstCode = try createMessage(first, &server, token: token)
        var second = PushwireWire.Notification()
        second.content = "Plain news"
        let secondCode = try createMessage(second, &server, token: token)

        let firstDetails = try details(firstCode, &server, token: token)
        let secondDetails = try details(secondCode, &server, token: token)
        for details in [firstDetails, secondDetails] {
            XCTAssertEqual(details.targeted, 3)
            XCTAssertEqual(details.sent, 3)
            XCTAssertEqual(details.failed, 0)
        }

        let records = double.records()
        XCTAssertEqual(records.count, 6, "one request per device and message, no more")
        var apnsIDs: Set<String> = []
        var jwts: Set<String> = []
        for (notification, details) in [(first, firstDetails), (second, secondDetails)] {
            let mine = records.filter { ($0["body"] as? String)?.contains(notification.content) ?? false }
            XCTAssertEqual(mine.compactMap(Self.deviceToken).sorted(), tokens.sorted(), "one request per device for \(notification.content)")
            for record in mine {
                let headers = Self.headers(of: record)
                XCTAssertEqual(record["method"] as? String, "POST")
                XCTAssertEqual(record["status"] as? Int, 200)
                XCTAssertEqual(record["jwt_ok"] as? Bool, true, "the double verified the ES256 signature with the app's public key")
                XCTAssertEqual(headers["apns-topic"], APNsDouble.topic)
                XCTAssertEqual(headers["apns-push-type"], "alert")
                XCTAssertEqual(headers["apns-priority"], notification.iosInterruptionLevel == .passive ? "5" : "10")
                let expiration = notification.iosTTL == 0 ? 0 : details.sendAtMS / 1000 + Int64(notification.iosTTL)
                XCTAssertEqual(headers["apns-expiration"], String(expiration))
                XCTAssertEqual(headers["apns-collapse-id"], notification.iosCollapseID.isEmpty ? nil : notification.iosCollapseID)
                let apnsID = try XCTUnwrap(headers["apns-id"])
                XCTAssertNotNil(UUID(uuidString: apnsID), "apns-id \(apnsID) is a UUID")
                apnsIDs.insert(apnsID.lowercased())
                if let authorization = headers["authorization"] { jwts.insert(authorization) }

                let body = try XCTUnwrap((record["body"] as? String).map { Data($0.utf8) })
                let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? [String: Any])
                let aps = try XCTUnwrap(payload["aps"] as? [String: Any])
                let alert = aps["alert"] as? [String: Any]
                XCTAssertEqual(alert?["body"] as? String ?? aps["alert"] as? String, notification.content)
                XCTAssertEqual(aps["category"] as? String, notification.iosCategoryID == 0 ? nil : String(notification.iosCategoryID))
            }
        }
        XCTAssertEqual(apnsIDs.count, 6, "every request has its own apns-id")
        // One provider token, reused, with the claims APNs wants.
        XCTAssertEqual(jwts.count, 1)
        let parts = try XCTUnwrap(jwts.first).dropFirst("bearer ".count).split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        let header = try XCTUnwrap(Self.jsonObject(parts[0]))
        let claims = try XCTUnwrap(Self.jsonObject(parts[1]))
        XCTAssertEqual(header["alg"] as? String, "ES256")
        XCTAssertEqual(header["kid"] as? String, APNsDouble.keyID)
        XCTAssertEqual(claims["iss"] as? String, APNsDouble.teamID)
    }

    /// Issue 18, item 3: a background push and an alert with the other APNs fields, as APNs wants them.
    func testBackgroundAndPriorityAndTheAlertsOtherFieldsReachTheDouble() throws {
        let double = try APNsDouble()
        var server = try startServer(double: double)
        defer { server.stop() }
        let (code, token) = try createApplication(&server)
        try register([Self.token(0)], application: code, on: &server)
        var silent = PushwireWire.Notification()
        silent.iosPushType = .background
        silent.data = #"{"sync":"inbox"}"#
        var rich = PushwireWire.Notification()
        rich.content = "Rich"
        rich.iosMutableContent = true
        rich.iosPriority = 1
        rich.iosRelevanceScore = 0.5
        rich.iosFilterCriteria = "work"
        rich.iosTargetContentID = "album"
        for notification in [silent, rich] {
            let details = try details(try createMessage(notification, &server, token: token), &server, token: token)
            XCTAssertEqual(details.sent, 1, "\(failures(details))")
        }
        let records = double.records()
        XCTAssertEqual(records.count, 2)
        let background = try XCTUnwrap(records.first { Self.headers(of: $0)["apns-push-type"] == "background" })
        XCTAssertEqual(Self.headers(of: background)["apns-priority"], "5")
        let silentPayload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(background["body"] as? String).utf8)) as? [String: Any])
        XCTAssertEqual(silentPayload["aps"] as? [String: Int], ["content-available": 1])
        XCTAssertEqual(silentPayload["sync"] as? String, "inbox")
        let alert = try XCTUnwrap(records.first { Self.headers(of: $0)["apns-push-type"] == "alert" })
        XCTAssertEqual(Self.headers(of: alert)["apns-priority"], "1")
        let aps = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(try XCTUnwrap(alert["body"] as? String).utf8)) as? [String: Any])?["aps"] as? [String: Any])
        XCTAssertEqual(aps["mutable-content"] as? Int, 1)
        XCTAssertEqual(aps["relevance-score"] as? Double, 0.5)
        XCTAssertEqual(aps["filter-criteria"] as? String, "work")
        XCTAssertEqual(aps["target-content-id"] as? String, "album")
    }

    // MARK: - The answers

    func testEachAnswerHasItsDocumentedEffect() async throws {
        let tokens = (0..<9).map(Self.token)
        let startedMS = Int64(Date().timeIntervalSince1970 * 1000)
        // Every request with the first provider token is answered 403 ExpiredProviderToken: the
        // gateway signs a new one (once) and sends again. Then the rules: TIMES 1 answers only the
        // first request for that token so, and the retry is accepted.
        let double = try APNsDouble([
            "--expire-first-jwt",
            "--rule", "\(tokens[1])=410:Unregistered",
            "--rule", "\(tokens[2])=400:BadDeviceToken",
            "--rule", "\(tokens[3])=429:TooManyRequests::1",
            "--rule", "\(tokens[4])=500:InternalServerError::1",
            "--rule", "\(tokens[5])=503:ServiceUnavailable::1",
            "--rule", "\(tokens[6])=500:InternalServerError",
            "--rule", "\(tokens[7])=413:PayloadTooLarge",
            "--rule", "\(tokens[8])=400:BadExpirationDate",
        ])
        var server = try startServer(double: double)
        defer { server.stop() }
        let (code, token) = try createApplication(&server)
        try register(tokens, application: code, on: &server)

        var notification = PushwireWire.Notification()
        notification.content = "Every answer"
        let messageCode = try createMessage(notification, &server, token: token)
        // pushwired's pipeline makes 4 attempts, 1 s apart and doubling (±50 %): ≤ 10.5 s.
        let details = try details(messageCode, &server, token: token)
        XCTAssertEqual(details.targeted, 9)
        XCTAssertEqual(details.sent, 4, "200 at once, and 429/500/503 once then 200")
        XCTAssertEqual(details.failed, 5)
        XCTAssertEqual(details.invalidTokens, 2, "410 Unregistered and 400 BadDeviceToken")
        XCTAssertEqual(failures(details), [
            "Unregistered": 1, "BadDeviceToken": 1, "InternalServerError": 1, "PayloadTooLarge": 1, "BadExpirationDate": 1,
        ])

        let records = double.records()
        let byToken = Dictionary(grouping: records) { Self.deviceToken(of: $0) ?? "" }
        // 403 ExpiredProviderToken → exactly one refresh: one rejected token, one new token after it.
        let expired = records.filter { $0["reason"] as? String == "ExpiredProviderToken" }
        // Requests sent before the first 403 came back carry the first token; those a connection
        // sends after the refresh carry the new one already. Either way each device's request is
        // rejected for its token at most once, and the statuses below show every one sent again.
        XCTAssertFalse(expired.isEmpty, "the first provider token was used, and rejected")
        XCTAssertEqual(Set(expired.compactMap(Self.deviceToken)).count, expired.count, "no device rejected twice for its token")
        let firstJWTs = Set(expired.compactMap { Self.headers(of: $0)["authorization"] })
        let laterJWTs = Set(records.filter { $0["reason"] as? String != "ExpiredProviderToken" }.compactMap { Self.headers(of: $0)["authorization"] })
        XCTAssertEqual(firstJWTs.count, 1)
        XCTAssertEqual(laterJWTs.count, 1, "one refresh, shared by every retried request")
        XCTAssertTrue(firstJWTs.isDisjoint(with: laterJWTs))
        XCTAssertTrue(records.allSatisfy { $0["jwt_ok"] as? Bool == true })
        func statuses(_ index: Int) -> [Int] {
            (byToken[tokens[index]] ?? []).filter { $0["reason"] as? String != "ExpiredProviderToken" }.compactMap { $0["status"] as? Int }
        }
        XCTAssertEqual(statuses(0), [200])
        XCTAssertEqual(statuses(1), [410], "a dead token is not retried")
        XCTAssertEqual(statuses(2), [400])
        XCTAssertEqual(statuses(3), [429, 200])
        XCTAssertEqual(statuses(4), [500, 200])
        XCTAssertEqual(statuses(5), [503, 200])
        XCTAssertEqual(statuses(6), [500, 500, 500, 500], "the pipeline's retry limit: 4 attempts")
        XCTAssertEqual(statuses(7), [413], "permanent: not retried")
        XCTAssertEqual(statuses(8), [400])

        // GetDevice: the 410's token dead as of the double's `timestamp`, BadDeviceToken's
        // invalid as of the answer, the others live (a permanent failure is not the token's).
        func device(_ index: Int) throws -> GetDeviceResponse {
            var request = GetDeviceRequest()
            request.hwid = "hw-\(index)"
            return try server.call(Methods.Messages.getDevice, request, token: token)
        }
        let dead = try device(1), invalid = try device(2), live = try device(0), tooLarge = try device(7)
        XCTAssertEqual(dead.tokenState, .dead)
        XCTAssertEqual(dead.tokenRefusedAtMS, 1_754_000_000_000, "APNs' timestamp of the 410")
        XCTAssertEqual(invalid.tokenState, .invalid)
        XCTAssertGreaterThanOrEqual(invalid.tokenRefusedAtMS, startedMS, "the time of the 400")
        XCTAssertLessThanOrEqual(invalid.tokenRefusedAtMS, Int64(Date().timeIntervalSince1970 * 1000))
        XCTAssertEqual([live.tokenState, tooLarge.tokenState], [.live, .live])
        XCTAssertEqual([live.tokenRefusedAtMS, tooLarge.tokenRefusedAtMS], [0, 0])

        // The dead (410) and invalid (400 BadDeviceToken) tokens are no longer targeted.
        var next = PushwireWire.Notification()
        next.content = "After the answers"
        var targeting = Targeting()
        targeting.devices = ["hw-0", "hw-1", "hw-2", "hw-3"]
        next.targeting = targeting
        let nextCode = try createMessage(next, &server, token: token)
        let nextDetails = try self.details(nextCode, &server, token: token)
        let nextTokens = double.records().filter { ($0["body"] as? String)?.contains("After the answers") ?? false }.compactMap(Self.deviceToken)
        XCTAssertEqual(nextTokens.sorted(), [tokens[0], tokens[3]].sorted(), "no request for the dead or invalid token")
        XCTAssertEqual(nextDetails.sent, 2)
        XCTAssertEqual(nextDetails.targeted, 2)

        // The dead device registers a new token: live again, and no refusal time left.
        try register([tokens[0], "ab" + tokens[1]], application: code, on: &server)
        let revived = try device(1)
        XCTAssertEqual(revived.tokenState, .live)
        XCTAssertEqual(revived.tokenRefusedAtMS, 0)
    }


    /// A gateway that cannot be created (here: the CA file stops loading after pushwired checked
    /// it at start) fails its deliveries with a reason after the retries; nothing is reported sent
    /// and nothing goes to the file sink in its place.
    func testAGatewayThatCannotBeCreatedFailsItsDeliveriesInsteadOfSinkingThem() async throws {
        let double = try APNsDouble()
        let caFile = Self.temporaryPath("pushwire-apns-ca") + ".pem"
        try FileManager.default.copyItem(atPath: try APNsDouble.caFile(), toPath: caFile)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let dataDirectory = Self.temporaryPath("pushwire-apns-e2e")
        var server = try startServer(double: double, caFile: caFile, dataDirectory: dataDirectory)
        defer { server.stop() }
        let (code, token) = try createApplication(&server)
        try register([Self.token(0)], application: code, on: &server)
        try Data("no longer a certificate\n".utf8).write(to: URL(fileURLWithPath: caFile))

        var notification = PushwireWire.Notification()
        notification.content = "Nobody can carry this"
        let details = try details(try createMessage(notification, &server, token: token), &server, token: token)
        XCTAssertEqual(details.targeted, 1)
        XCTAssertEqual(details.sent, 0)
        XCTAssertEqual(failures(details), ["APNsGatewayUnavailable": 1])
        XCTAssertTrue(double.records().isEmpty, "no request reached APNs")
        let sink = (try? String(contentsOfFile: dataDirectory + "/sink.jsonl", encoding: .utf8)) ?? ""
        XCTAssertEqual(sink, "", "nothing written to the file sink as if sent")
    }

    // MARK: - A restart of APNs

    func testARestartOfTheDoubleMidFanOutLosesAndDuplicatesNothing() async throws {
        let total = 3000
        let logPath = try APNsDouble.materialDirectory().appendingPathComponent("restart-\(UUID().uuidString).jsonl").path
        var double = try APNsDouble(logPath: logPath)
        let port = double.port
        var server = try startServer(double: double)
        defer { server.stop() }
        let (code, token) = try createApplication(&server)
        let tokens = (0..<total).map(Self.token)
        try register(tokens, application: code, on: &server)

        var notification = PushwireWire.Notification()
        notification.content = "Through a restart"
        let messageCode = try createMessage(notification, &server, token: token)
        // Stop the double (SIGTERM: it closes every connection with requests unanswered) once part
        // of the fan-out was answered, and start it again on the same port with the same log.
        let deadline = Date().addingTimeInterval(30)
        var answeredAtStop = 0
        while Date() < deadline {
            answeredAtStop = lineCount(logPath)
            if answeredAtStop >= total / 5 { break }
            usleep(2_000)
        }
        double.stop()
        answeredAtStop = lineCount(logPath)
        double = try APNsDouble(port: port, logPath: logPath)
        print("APNs restart test: the double answered \(answeredAtStop) of \(total) before its restart")
        XCTAssertGreaterThan(answeredAtStop, 0)
        XCTAssertLessThan(answeredAtStop, total, "the restart happened in the middle of the fan-out")

        let details = try details(messageCode, &server, token: token)
        XCTAssertEqual(details.targeted, UInt64(total))
        XCTAssertEqual(details.sent, UInt64(total), "nothing lost: \(failures(details))")
        XCTAssertEqual(details.failed, 0)

        let accepted = double.records().filter { $0["status"] as? Int == 200 }
        let acceptedTokens = accepted.compactMap(Self.deviceToken)
        XCTAssertEqual(Set(acceptedTokens), Set(tokens), "every device was delivered")
        XCTAssertEqual(acceptedTokens.count, total, "no device was delivered twice")
        let apnsIDs = Set(accepted.compactMap { Self.headers(of: $0)["apns-id"]?.lowercased() })
        XCTAssertEqual(apnsIDs.count, total, "one apns-id per delivered notification")
        double.stop()
    }

    private func lineCount(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return data.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }
}
