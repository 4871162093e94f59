#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import PushwireRuntime

/// pushwired's HTTP door with the services behind it: Pushwoosh `createMessage` checks the
/// request's `application` against its `auth` token; `/metrics` carries the services' families.
extension PushwiredProcessTests {
    /// Runs pushwired (admin token "admin") and calls `body` with a client of its HTTP door; the
    /// process is stopped after, and killed if it hangs (bounded).
    private func withPushwired(_ body: (HTTPTestClient) throws -> Void) throws {
        try withPushwiredHTTPDoor(adminToken: "admin", watchdogSeconds: 30) { try body(try HTTPTestClient($0)) }
    }

    func testMetricsOfTheServicesPassPromtool() throws {
        try withPushwired { client in
            try client.send(HTTPTestClient.request("GET", "/metrics"))
            let metrics = try client.readResponse()
            XCTAssertEqual(metrics.status, 200)
            for line in ["pushwire_fcm_gateways 0", "pushwire_fcm_access_tokens_granted_total 0", "pushwire_fcm_access_token_grant_failures_total 0", "pushwire_fcm_connection_retries_total 0",
                         "pushwire_fcm_unanswered_after_sending_total 0", "pushwire_apns_unanswered_after_sending_total 0",
                         "pushwire_apns_gateways 0", #"pushwire_deliveries_total{gateway="fcm",platform="android",outcome="sent"} 0"#] {
                XCTAssertTrue(metrics.text.contains("\n" + line + "\n"), "\(line) in:\n\(metrics.text)")
            }
            try PromtoolCheck.check(metrics.text)
        }
    }

    func testPushwooshCreateMessageRefusesAnotherApplicationsCode() throws {
        try withPushwired { client in
            func createApplication(_ name: String) throws -> (code: String, token: String) {
                let answer = try client.post("/pushwire.v1.Admin/CreateApplication", json: #"{"name": "\#(name)"}"#,
                                             headers: [("Authorization", "Bearer admin")])
                XCTAssertEqual(answer.status, 200, answer.text)
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
                let application = try XCTUnwrap(object["application"] as? [String: Any])
                return (try XCTUnwrap(application["code"] as? String), try XCTUnwrap(object["accessToken"] as? String))
            }
            let first = try createApplication("First")
            let second = try createApplication("Second")

            func createMessage(auth: String, application: String) throws -> [String: Any] {
                let json = #"{"request": {"auth": "\#(auth)", "application": "\#(application)", "notifications": [{"send_date": "now", "content": "Hello"}]}}"#
                let answer = try client.post("/json/1.3/createMessage", json: json)
                XCTAssertEqual(answer.status, 200, answer.text)  // Pushwoosh's argument errors come in an HTTP 200
                return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            }
            // The first app's token with the second app's code: refused, nothing sent.
            let refused = try createMessage(auth: first.token, application: second.code)
            XCTAssertEqual(refused["status_code"] as? Int, 210, "\(refused)")
            XCTAssertTrue((refused["status_message"] as? String ?? "").contains("does not belong to application"), "\(refused)")
            // The matching pair is accepted and returns a message code.
            let accepted = try createMessage(auth: first.token, application: first.code)
            XCTAssertEqual(accepted["status_code"] as? Int, 200, "\(accepted)")
            let response = try XCTUnwrap(accepted["response"] as? [String: Any], "\(accepted)")
            XCTAssertEqual((response["Messages"] as? [String])?.count, 1, "\(accepted)")
        }
    }
}
