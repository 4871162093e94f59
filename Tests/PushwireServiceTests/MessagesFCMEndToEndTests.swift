import Foundation
import PushwireWire
import XCTest

/// Issue 18: pushwired with the APNs double and the FCM double (Scripts/fcm-double) as real
/// processes. Each device goes through its own platform's service with its platform's payload;
/// FCM's answers have their documented effects; an access token refused with 401 is replaced
/// once; a restart of the FCM double mid fan-out loses and duplicates nothing; a platform without
/// credentials is counted as such and targeted again once they are added. What the sink and the
/// options say of FCM is in MessagesFCMEndToEndTests+Configuration.swift.
final class MessagesFCMEndToEndTests: XCTestCase {
    typealias Server = PushDoubleServer

    static let adminToken = "fcm-e2e-admin"

    /// Starts pushwired against the doubles given (their CA is the same).
    func startServer(fcm: FCMDouble?, apns: APNsDouble? = nil) throws -> Server {
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let dataDirectory = Self.temporaryPath("pushwire-fcm-e2e")
        var arguments: [String] = []
        if let fcm { arguments += ["--fcm-url", fcm.baseURL, "--fcm-ca-file", try APNsDouble.caFile()] }
        if let apns { arguments += ["--apns-url", apns.baseURL, "--apns-ca-file", try APNsDouble.caFile()] }
        let (process, port) = try CrashRecoveryTests.startServer(path, dataDirectory: dataDirectory, adminToken: Self.adminToken,
                                                                 extraArguments: arguments)
        return Server(process: process, client: try RawClient(port: port), dataDirectory: dataDirectory)
    }

    func createApplication(_ server: inout Server, apns: Bool, fcm: FCMDouble?) throws -> (code: String, token: String) {
        var request = CreateApplicationRequest()
        request.name = "fcm-e2e"
        if apns {
            var settings = ApnsSettings()
            settings.teamID = APNsDouble.teamID
            settings.keyID = APNsDouble.keyID
            settings.topic = APNsDouble.topic
            settings.privateKeyP8 = try APNsDouble.p8()
            settings.environment = .sandbox
            request.apns = settings
        }
        if let fcm {
            var settings = FcmSettings()
            settings.serviceAccountJSON = try fcm.serviceAccountJSON()
            request.fcm = settings
        }
        let created = try server.call(Methods.Admin.createApplication, request, token: Self.adminToken)
        return (try XCTUnwrap(created.application?.code), created.accessToken)
    }

    /// The per-platform counts as (targeted, sent, failed, invalid tokens) by device type.
    func platforms(_ details: GetMessageDetailsResponse) -> [Int32: [UInt64]] {
        Dictionary(uniqueKeysWithValues: details.platforms.map {
            ($0.deviceType.rawValue, [$0.targeted, $0.sent, $0.failed, $0.invalidTokens])
        })
    }

    static func iosToken(_ index: Int) -> String { String(format: "%064x", 0xF0E000 + index) }
    static func androidToken(_ index: Int) -> String { "android-\(index):APA91bDoubleToken_\(index)" }

    // MARK: - Both platforms

    func testEachDeviceGetsOneRequestOnItsOwnServiceWithItsPlatformsPayload() throws {
        let apns = try APNsDouble()
        let fcm = try FCMDouble()
        var server = try startServer(fcm: fcm, apns: apns)
        defer { server.stop() }
        let (code, token) = try createApplication(&server, apns: true, fcm: fcm)
        let devices: [(hwid: String, token: String, type: DeviceType, language: String)] = [
            ("ios-en", Self.iosToken(0), .ios, "en"), ("ios-fr", Self.iosToken(1), .ios, "fr"),
            ("and-en", Self.androidToken(0), .android, "en"), ("and-fr", Self.androidToken(1), .android, "fr"),
            ("and-de", Self.androidToken(2), .android, "de"),
        ]
        try register(devices, application: code, on: &server)

        var yes = Button(), no = Button(), reply = Button()
        yes.id = 0
        yes.label = "Yes"
        yes.startApplication = true
        var oui = LocalizedText()
        oui.language = "fr"
        oui.text = "Oui"
        yes.localizedLabels = [oui]
        no.id = 1
        no.label = "No"
        no.destructive = true
        reply.id = 2
        reply.label = "Reply"
        reply.behavior = .textInput
        reply.textInputButtonTitle = "Send"
        reply.textInputPlaceholder = "Your answer"
        var category = PushwireWire.Category()
        category.name = "Invite"
        category.buttons = [yes, no, reply]
        var upsert = UpsertCategoryRequest()
        upsert.category = category
        let categoryID = try XCTUnwrap(try server.call(Methods.Categories.upsertCategory, upsert, token: token).category?.categoryID)

        var notification = PushwireWire.Notification()
        notification.title = "Dinner"
        notification.content = "At eight?"
        var french = LocalizedText()
        french.language = "fr"
        french.text = "À huit heures ?"
        notification.localizedContent = [french]
        notification.iosCategoryID = categoryID
        notification.iosTTL = 3600
        notification.iosCollapseID = "dinner"
        notification.data = #"{"order": 42, "note": "tea \"or\" coffee"}"#
        let messageCode = try createMessage(notification, &server, token: token)
        let details = try details(messageCode, &server, token: token)
        XCTAssertEqual(details.targeted, 5)
        XCTAssertEqual(details.sent, 5)
        XCTAssertEqual(details.failed, 0, "\(failures(details))")
        XCTAssertEqual(platforms(details), [1: [2, 2, 0, 0], 3: [3, 3, 0, 0]])

        // APNs got exactly the iOS devices, with APNs payloads.
        let apnsRecords = apns.records()
        XCTAssertEqual(apnsRecords.compactMap { ($0["path"] as? String)?.dropFirst("/3/device/".count) }.map(String.init).sorted(),
                       [Self.iosToken(0), Self.iosToken(1)].sorted())
        for record in apnsRecords {
            let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(record["body"] as? String).utf8)) as? [String: Any])
            XCTAssertNotNil(payload["aps"])
            XCTAssertEqual(payload["pw_msg"] as? String, messageCode)
        }

        // FCM got exactly the Android devices, each once, with an Android data message.
        let sends = fcm.sends()
        XCTAssertEqual(sends.compactMap { $0["token"] as? String }.sorted(), (0..<3).map(Self.androidToken).sorted())
        XCTAssertTrue(sends.allSatisfy { $0["status"] as? Int == 200 && $0["bearer_ok"] as? Bool == true })
        XCTAssertTrue(sends.allSatisfy { $0["path"] as? String == "/v1/projects/\(FCMDouble.project)/messages:send" })
        XCTAssertEqual(fcm.grants().count, 1, "one access token, granted once and reused")
        XCTAssertTrue(fcm.grants().allSatisfy { $0["status"] as? Int == 200 })
        for send in sends {
            let message = try XCTUnwrap(FCMDouble.message(of: send))
            let data = try XCTUnwrap(message["data"] as? [String: String], "every data value is a string")
            let french = message["token"] as? String == Self.androidToken(1)
            XCTAssertEqual(data["pw_msg"], messageCode)
            XCTAssertEqual(data["pw_title"], "Dinner")
            XCTAssertEqual(data["pw_body"], french ? "À huit heures ?" : "At eight?")
            XCTAssertEqual(data["pw_category"], String(categoryID))
            XCTAssertEqual(data["order"], "42")
            XCTAssertEqual(data["note"], #"tea "or" coffee"#)
            let buttons = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(data["pw_buttons"]).utf8)) as? [[String: Any]])
            XCTAssertEqual(buttons.compactMap { $0["id"] as? String }, ["0", "1", "2"])
            XCTAssertEqual(buttons.compactMap { $0["label"] as? String }, [french ? "Oui" : "Yes", "No", "Reply"],
                           "labels in the device's language")
            XCTAssertEqual(buttons.compactMap { $0["foreground"] as? Bool }, [true, false, false])
            XCTAssertEqual(buttons.compactMap { $0["destructive"] as? Bool }, [false, true, false])
            XCTAssertEqual(buttons.compactMap { $0["text_input"] as? Bool }, [false, false, true])
            XCTAssertEqual(buttons[2]["input_button_title"] as? String, "Send")
            XCTAssertEqual(buttons[2]["placeholder"] as? String, "Your answer")
            let android = try XCTUnwrap(message["android"] as? [String: Any])
            XCTAssertEqual(android["ttl"] as? String, "3600s")
            XCTAssertEqual(android["collapse_key"] as? String, "dinner")
            XCTAssertEqual(android["priority"] as? String, "HIGH")
        }
    }

    // MARK: - FCM's answers

    func testEachFCMAnswerHasItsDocumentedEffect() throws {
        let tokens = (0..<8).map(Self.androidToken)
        let startedMS = Int64(Date().timeIntervalSince1970 * 1000)
        // Every send with the first access token is answered 401: the gateway gets a new token
        // once and sends again. Then the rules (TIMES 1: only the first request so).
        let fcm = try FCMDouble([
            "--reject-first-token",
            "--rule", "\(tokens[1])=404:UNREGISTERED",
            "--rule", "\(tokens[2])=400:INVALID_ARGUMENT",
            "--rule", "\(tokens[3])=429:QUOTA_EXCEEDED:1:1",
            "--rule", "\(tokens[4])=503:UNAVAILABLE::1",
            "--rule", "\(tokens[5])=500:INTERNAL",
            "--rule", "\(tokens[6])=403:SENDER_ID_MISMATCH",
            "--rule", "\(tokens[7])=403:THIRD_PARTY_AUTH_ERROR",
        ])
        var server = try startServer(fcm: fcm)
        defer { server.stop() }
        let (code, token) = try createApplication(&server, apns: false, fcm: fcm)
        try register(tokens.enumerated().map { ("hw-\($0.offset)", $0.element, .android, "en") }, application: code, on: &server)

        var notification = PushwireWire.Notification()
        notification.content = "Every answer"
        let messageCode = try createMessage(notification, &server, token: token)
        let details = try details(messageCode, &server, token: token)
        XCTAssertEqual(details.targeted, 8)
        XCTAssertEqual(details.sent, 3, "200 at once, 429 and 503 once then 200")
        XCTAssertEqual(details.failed, 5)
        XCTAssertEqual(details.invalidTokens, 3, "UNREGISTERED, INVALID_ARGUMENT for the token, SENDER_ID_MISMATCH")
        XCTAssertEqual(failures(details), ["UNREGISTERED": 1, "INVALID_ARGUMENT": 1, "INTERNAL": 1, "SENDER_ID_MISMATCH": 1,
                                           "THIRD_PARTY_AUTH_ERROR": 1])
        XCTAssertEqual(platforms(details), [3: [8, 3, 5, 3]])

        let sends = fcm.sends()
        // 401 → exactly one new token: the first was refused, every later send carried the second.
        let refused = sends.filter { $0["status"] as? Int == 401 }
        XCTAssertFalse(refused.isEmpty, "the first access token was used, and refused")
        XCTAssertEqual(Set(refused.compactMap { $0["authorization"] as? String }).count, 1)
        let later = Set(sends.filter { $0["status"] as? Int != 401 }.compactMap { $0["authorization"] as? String })
        XCTAssertEqual(later.count, 1, "one refresh, shared by every retried request")
        XCTAssertEqual(fcm.grants().count, 2)
        func statuses(_ index: Int) -> [Int] {
            sends.filter { $0["token"] as? String == tokens[index] && $0["status"] as? Int != 401 }.compactMap { $0["status"] as? Int }
        }
        XCTAssertEqual(statuses(0), [200])
        XCTAssertEqual(statuses(1), [404], "a dead token is not retried")
        XCTAssertEqual(statuses(2), [400])
        XCTAssertEqual(statuses(3), [429, 200])
        XCTAssertEqual(statuses(4), [503, 200])
        XCTAssertEqual(statuses(5), [500, 500, 500, 500], "the pipeline's retry limit: 4 attempts")
        XCTAssertEqual(statuses(6), [403])
        XCTAssertEqual(statuses(7), [403], "other errors are permanent")

        // GetDevice: UNREGISTERED dead, INVALID_ARGUMENT on the token and SENDER_ID_MISMATCH
        // invalid, each as of the answer (FCM gives no time); other failures leave it live.
        func device(_ index: Int) throws -> GetDeviceResponse {
            var request = GetDeviceRequest()
            request.hwid = "hw-\(index)"
            return try server.call(Methods.Messages.getDevice, request, token: token)
        }
        let answered = (0..<8).map { try? device($0) }
        XCTAssertEqual(answered.map { $0?.tokenState }, [.live, .dead, .invalid, .live, .live, .live, .invalid, .live])
        let nowMS = Int64(Date().timeIntervalSince1970 * 1000)
        for index in [1, 2, 6] {
            let at = answered[index]?.tokenRefusedAtMS ?? 0
            XCTAssertTrue((startedMS...nowMS).contains(at), "hw-\(index) refused at \(at), not within the test's \(startedMS)…\(nowMS)")
        }
        XCTAssertEqual(answered.map { $0?.tokenRefusedAtMS == 0 }, [true, false, false, true, true, true, false, true])

        // Dead and invalid tokens are no longer targeted.
        var next = PushwireWire.Notification()
        next.content = "After the answers"
        let nextDetails = try self.details(try createMessage(next, &server, token: token), &server, token: token)
        XCTAssertEqual(nextDetails.targeted, 5, "not the UNREGISTERED, INVALID_ARGUMENT or SENDER_ID_MISMATCH devices")
    }

    // MARK: - A stalled token grant

    /// The access token is replaced ahead of its expiry on a thread of its own: while the token
    /// endpoint hangs, Android devices go on being sent with the token still valid and iOS
    /// devices with APNs, so a message to both finishes as if nothing were wrong. (Granting on the
    /// connection's thread, the message waited the grant's 10 s timeout, and then again.)
    func testAStalledTokenGrantHoldsUpNeitherAPNsNorFCMDeliveriesWithAValidToken() throws {
        let apns = try APNsDouble()
        // Tokens live 20 s, so they are replaced from 10 s on; every grant after the first hangs 30 s.
        let fcm = try FCMDouble(["--token-ttl", "20", "--stall-grants-after", "1", "--stall-grants-ms", "30000"])
        var server = try startServer(fcm: fcm, apns: apns)
        defer { server.stop() }
        let (code, token) = try createApplication(&server, apns: true, fcm: fcm)
        let devices = (0..<20).flatMap { index -> [(hwid: String, token: String, type: DeviceType, language: String)] in
            [("ios-\(index)", Self.iosToken(index), .ios, "en"), ("and-\(index)", Self.androidToken(index), .android, "en")]
        }
        try register(devices, application: code, on: &server)

        var notification = PushwireWire.Notification()
        notification.content = "Before the refresh"
        let start = Date()
        let first = try details(try createMessage(notification, &server, token: token), &server, token: token)
        XCTAssertEqual(first.sent, 40, "\(failures(first))")
        XCTAssertEqual(fcm.grants().count, 1)
        let firstBearer = Set(fcm.sends().compactMap { $0["authorization"] as? String })
        XCTAssertEqual(firstBearer.count, 1)

        // Past the refresh time (the grant came less than a second after `start`), well before expiry.
        let refreshDue = start.addingTimeInterval(11)
        if refreshDue > Date() { usleep(UInt32(refreshDue.timeIntervalSinceNow * 1_000_000)) }
        notification.content = "While the grant hangs"
        let sentAt = Date()
        let second = try details(try createMessage(notification, &server, token: token), &server, token: token, timeout: 8)
        let took = Date().timeIntervalSince(sentAt)
        XCTAssertEqual(second.sent, 40, "\(failures(second))")
        XCTAssertEqual(platforms(second), [1: [20, 20, 0, 0], 3: [20, 20, 0, 0]])
        XCTAssertLessThan(took, 5, "the stalled grant held the message up for \(took) s")
        XCTAssertEqual(apns.records().count, 40, "APNs got both messages' iOS devices")
        let sends = fcm.sends()
        XCTAssertEqual(sends.count, 40, "each Android device once per message")
        XCTAssertTrue(sends.allSatisfy { $0["status"] as? Int == 200 })
        XCTAssertEqual(Set(sends.compactMap { $0["authorization"] as? String }), firstBearer,
                       "the second message went with the token still valid")
        XCTAssertEqual(fcm.grants().count, 1, "the replacement grant is still hanging")
    }

    // MARK: - Credentials per platform

    func testAnAndroidDeviceInAnAPNsOnlyApplicationIsCountedAndTargetedOnceFCMIsAdded() throws {
        let apns = try APNsDouble()
        let fcm = try FCMDouble()
        var server = try startServer(fcm: fcm, apns: apns)
        defer { server.stop() }
        let (code, token) = try createApplication(&server, apns: true, fcm: nil)
        try register([("ios", Self.iosToken(0), .ios, "en"), ("android", Self.androidToken(0), .android, "en")],
                     application: code, on: &server)
        var notification = PushwireWire.Notification()
        notification.content = "APNs only"
        let first = try details(try createMessage(notification, &server, token: token), &server, token: token)
        XCTAssertEqual(first.targeted, 2)
        XCTAssertEqual(first.sent, 1)
        XCTAssertEqual(first.invalidTokens, 0, "the Android device is not marked")
        XCTAssertEqual(failures(first), ["NoCredentialsForPlatform": 1])
        XCTAssertEqual(platforms(first), [1: [1, 1, 0, 0], 3: [1, 0, 1, 0]])
        XCTAssertEqual(apns.records().count, 1, "the Android device never went through APNs")
        XCTAssertTrue(fcm.sends().isEmpty)

        var update = UpdateApplicationRequest()
        update.application = code
        var settings = FcmSettings()
        settings.serviceAccountJSON = try fcm.serviceAccountJSON()
        update.fcm = settings
        let updated = try server.call(Methods.Admin.updateApplication, update, token: Self.adminToken)
        XCTAssertEqual(updated.application?.hasFcmCredentials, true)
        XCTAssertEqual(updated.application?.fcmProjectID, FCMDouble.project)
        notification.content = "Both now"
        let second = try details(try createMessage(notification, &server, token: token), &server, token: token)
        XCTAssertEqual(second.targeted, 2, "the Android device is still targeted")
        XCTAssertEqual(second.sent, 2)
        XCTAssertEqual(fcm.sends().compactMap { $0["token"] as? String }, [Self.androidToken(0)])
    }

    /// An FCM gateway that cannot be created (its CA file stopped loading after pushwired checked
    /// it) fails the Android deliveries with a reason; the application's APNs gateway is kept
    /// meanwhile (the same connections message after message), not made again with each message.
    func testAnUnavailableFCMGatewayLeavesTheAPNsGatewayAlone() throws {
        let apns = try APNsDouble()
        let fcm = try FCMDouble()
        let caFile = Self.temporaryPath("pushwire-fcm-ca") + ".pem"
        try FileManager.default.copyItem(atPath: try APNsDouble.caFile(), toPath: caFile)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let (process, port) = try CrashRecoveryTests.startServer(
            path, dataDirectory: Self.temporaryPath("pushwire-fcm-e2e"), adminToken: Self.adminToken,
            extraArguments: ["--fcm-url", fcm.baseURL, "--fcm-ca-file", caFile, "--apns-url", apns.baseURL, "--apns-ca-file", try APNsDouble.caFile()])
        var server = Server(process: process, client: try RawClient(port: port), dataDirectory: "")
        defer { server.stop() }
        let (code, token) = try createApplication(&server, apns: true, fcm: fcm)
        try register([("ios", Self.iosToken(0), .ios, "en"), ("android", Self.androidToken(0), .android, "en")],
                     application: code, on: &server)
        try Data("no longer a certificate\n".utf8).write(to: URL(fileURLWithPath: caFile))
        for round in 0..<3 {
            var notification = PushwireWire.Notification()
            notification.content = "Round \(round)"
            let details = try details(try createMessage(notification, &server, token: token), &server, token: token)
            XCTAssertEqual(details.sent, 1)
            XCTAssertEqual(failures(details), ["FCMGatewayUnavailable": 1])
        }
        XCTAssertTrue(fcm.sends().isEmpty)
        // The gateway spreads notifications over its 2 connections in turn: a kept gateway uses
        // connections 1, 2, 1; one made again per message would open a third.
        let connections = apns.records().compactMap { $0["connection"] as? Int }
        XCTAssertEqual(connections.count, 3)
        XCTAssertEqual(Set(connections).count, 2, "the APNs gateway (its 2 connections) was kept: \(connections)")
    }

    // MARK: - A restart of FCM

    func testARestartOfTheFCMDoubleMidFanOutLosesAndDuplicatesNothing() throws {
        let total = 3000
        let logPath = try FCMDouble.materialDirectory().appendingPathComponent("fcm-restart-\(UUID().uuidString).jsonl").path
        var fcm = try FCMDouble(logPath: logPath)
        let port = fcm.port
        var server = try startServer(fcm: fcm)
        defer { server.stop() }
        let (code, token) = try createApplication(&server, apns: false, fcm: fcm)
        let tokens = (0..<total).map(Self.androidToken)
        try register(tokens.enumerated().map { ("hw-\($0.offset)", $0.element, .android, "en") }, application: code, on: &server)

        var notification = PushwireWire.Notification()
        notification.content = "Through a restart"
        let messageCode = try createMessage(notification, &server, token: token)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, fcm.sends().count < total / 5 { usleep(2_000) }
        fcm.stop()
        let answeredAtStop = fcm.sends().count
        // The new process knows none of the old one's access tokens: the first sends get 401 and
        // the gateway gets a new token.
        fcm = try FCMDouble(port: port, logPath: logPath)
        print("FCM restart test: the double answered \(answeredAtStop) of \(total) before its restart")
        XCTAssertGreaterThan(answeredAtStop, 0)
        XCTAssertLessThan(answeredAtStop, total, "the restart happened in the middle of the fan-out")

        let details = try details(messageCode, &server, token: token)
        XCTAssertEqual(details.targeted, UInt64(total))
        XCTAssertEqual(details.sent, UInt64(total), "nothing lost: \(failures(details))")
        XCTAssertEqual(details.failed, 0)
        let accepted = fcm.sends().filter { $0["status"] as? Int == 200 }.compactMap { $0["token"] as? String }
        XCTAssertEqual(Set(accepted), Set(tokens), "every device was delivered")
        XCTAssertEqual(accepted.count, total, "no device was delivered twice")
        fcm.stop()
    }
}
