import Foundation
import PushwireWire
import XCTest

/// FCM as an operator configures it: the sink names each line's platform, service accounts are
/// checked and never returned, and pushwired's --fcm-url/--fcm-ca-file are documented and checked.
extension MessagesFCMEndToEndTests {
    func testTheSinkNamesEachLinesPlatform() throws {
        var server = try startServer(fcm: nil)
        defer { server.stop() }
        let (code, token) = try createApplication(&server, apns: false, fcm: nil)
        try register([("ios", Self.iosToken(0), .ios, "en"), ("android", Self.androidToken(0), .android, "en")],
                     application: code, on: &server)
        var notification = PushwireWire.Notification()
        notification.content = "To the sink"
        let details = try details(try createMessage(notification, &server, token: token), &server, token: token)
        XCTAssertEqual(details.sent, 2)
        XCTAssertEqual(platforms(details), [1: [1, 1, 0, 0], 3: [1, 1, 0, 0]])
        let sink = try String(contentsOfFile: server.dataDirectory + "/sink.jsonl", encoding: .utf8)
        let lines = sink.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(lines.count, 2)
        let byPlatform = Dictionary(uniqueKeysWithValues: lines.compactMap { line in (line["platform"] as? String).map { ($0, line) } })
        XCTAssertEqual(Set(byPlatform.keys), ["ios", "android"])
        XCTAssertNotNil((byPlatform["ios"]?["payload"] as? [String: Any])?["aps"], "iOS lines carry the APNs payload")
        XCTAssertNotNil((byPlatform["android"]?["payload"] as? [String: Any])?["data"], "Android lines carry the FCM message")
    }

    func testServiceAccountsAreCheckedAndNeverReturned() throws {
        let fcm = try FCMDouble()
        var server = try startServer(fcm: fcm)
        defer { server.stop() }
        // (An empty `service_account_json` encodes an empty FcmSettings, which reads as absent.)
        for (index, bad) in ["{}", "not json", #"{"type":"service_account","project_id":"p","client_email":"a@b","token_uri":"https://x/token","private_key":"nope"}"#,
                    try fcm.serviceAccountJSON().replacingOccurrences(of: #""token_uri":"https:"#, with: #""token_uri":"http:"#)].enumerated() {
            var request = CreateApplicationRequest()
            request.name = "bad"
            var settings = FcmSettings()
            settings.serviceAccountJSON = bad
            request.fcm = settings
            XCTAssertThrowsError(try server.call(Methods.Admin.createApplication, request, token: Self.adminToken), "case \(index)") { error in
                XCTAssertEqual((error as? RPCError)?.code, .invalidArgument, "\(error)")
                XCTAssertTrue("\(error)".contains("fcm.service_account_json"), "\(error)")
            }
        }
        let (code, _) = try createApplication(&server, apns: false, fcm: fcm)
        let listed = try server.call(Methods.Admin.listApplications, ListApplicationsRequest(), token: Self.adminToken)
        let application = try XCTUnwrap(listed.applications.first { $0.code == code })
        XCTAssertTrue(application.hasFcmCredentials)
        XCTAssertEqual(application.fcmClientEmail, FCMDouble.clientEmail)
        XCTAssertFalse(String(decoding: application.encode(), as: UTF8.self).contains("PRIVATE KEY"), "the key is never returned")
    }

    func testTheFCMEndpointOptionsAreDocumentedAndChecked() throws {
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let run = try runExecutable("pushwired", arguments, timeout: 60)
            return (run.status, run.stdout + run.stderr)
        }
        let help = try run(["--help"])
        XCTAssertTrue(help.1.contains("--fcm-url <url>") && help.1.contains("--fcm-ca-file <file>"), help.1)
        let plain = try run(["--fcm-url", "http://127.0.0.1:9"])
        XCTAssertEqual(plain.0, 64)
        XCTAssertTrue(plain.1.contains("--fcm-url: 'http://127.0.0.1:9' is not an https:// URL"), plain.1)
        let dataDirectory = Self.temporaryPath("pushwire-fcm-opts")
        let missing = try run(["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--admin-token", Self.adminToken,
                               "--fcm-ca-file", dataDirectory + "/no-such-ca.pem"])
        XCTAssertEqual(missing.0, 1)
        XCTAssertTrue(missing.1.contains("cannot load the FCM CA file"), missing.1)
    }
}
