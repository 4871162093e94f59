import Foundation
import PushwireDelivery
import XCTest
@testable import PushwireAPNs

/// FCM's pieces that need no server: answers to outcomes, the request body, the service account's
/// checks. The whole path (token grant, HTTP/2, the double's checks) is in
/// PushwireServiceTests/MessagesFCMEndToEndTests.
final class FCMGatewayTests: XCTestCase {
    private func error(_ status: Int, _ code: String?, message: String = "m", tokenField: Bool = false) -> [UInt8] {
        var details: [[String: Any]] = []
        if let code { details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code]) }
        if tokenField { details.append(["@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [["field": "message.token"]]]) }
        let body: [String: Any] = ["error": ["code": status, "message": message, "status": "X", "details": details]]
        return Array(try! JSONSerialization.data(withJSONObject: body))  // test input, always valid
    }

    func testEachAnswerClassBecomesTheDocumentedOutcome() {
        XCTAssertEqual(FCMResponse.verdict(status: 200, body: Array(#"{"name":"projects/p/messages/1"}"#.utf8), retryAfter: nil),
                       .outcome(.sent(apnsID: "")))
        XCTAssertEqual(FCMResponse.verdict(status: 404, body: error(404, "UNREGISTERED"), retryAfter: nil),
                       .outcome(.deadToken(reason: "UNREGISTERED", since: nil)))
        XCTAssertEqual(FCMResponse.verdict(status: 404, body: [], retryAfter: nil), .outcome(.deadToken(reason: "UNREGISTERED", since: nil)))
        XCTAssertEqual(FCMResponse.verdict(status: 400, body: error(400, "INVALID_ARGUMENT", tokenField: true), retryAfter: nil),
                       .outcome(.invalidToken(reason: "INVALID_ARGUMENT")))
        XCTAssertEqual(FCMResponse.verdict(status: 400, body: error(400, "INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token"), retryAfter: nil),
                       .outcome(.invalidToken(reason: "INVALID_ARGUMENT")))
        XCTAssertEqual(FCMResponse.verdict(status: 400, body: error(400, "INVALID_ARGUMENT", message: "Invalid value at 'message.android.ttl'"), retryAfter: nil),
                       .outcome(.failed(reason: "INVALID_ARGUMENT")), "a 400 about the message is not the token's fault")
        XCTAssertEqual(FCMResponse.verdict(status: 403, body: error(403, "SENDER_ID_MISMATCH"), retryAfter: nil),
                       .outcome(.invalidToken(reason: "SENDER_ID_MISMATCH")))
        XCTAssertEqual(FCMResponse.verdict(status: 401, body: error(401, "UNAUTHENTICATED"), retryAfter: nil), .refreshTokenAndRetry)
        XCTAssertEqual(FCMResponse.verdict(status: 429, body: error(429, "QUOTA_EXCEEDED"), retryAfter: .seconds(7)),
                       .outcome(.retry(reason: "QUOTA_EXCEEDED", after: .seconds(7))))
        XCTAssertEqual(FCMResponse.verdict(status: 503, body: error(503, "UNAVAILABLE"), retryAfter: nil),
                       .outcome(.retry(reason: "UNAVAILABLE", after: nil)))
        XCTAssertEqual(FCMResponse.verdict(status: 500, body: Array("<html>".utf8), retryAfter: nil),
                       .outcome(.retry(reason: "HTTP 500", after: nil)))
        XCTAssertEqual(FCMResponse.verdict(status: 403, body: error(403, "THIRD_PARTY_AUTH_ERROR"), retryAfter: nil),
                       .outcome(.failed(reason: "THIRD_PARTY_AUTH_ERROR")))
    }

    func testTheRequestBodyPutsTheTokenIntoTheRenderedMessage() {
        let message = Array(#"{"data":{"pw_msg":"M"},"android":{"priority":"HIGH"}}"#.utf8)
        let notification = OutgoingNotification(deliveryID: 1, messageCode: "M", deviceToken: "abc:DEF-1_2", payload: message, deviceType: 3)
        XCTAssertEqual(String(decoding: FCMGateway.requestBody(notification), as: UTF8.self),
                       #"{"message":{"token":"abc:DEF-1_2","data":{"pw_msg":"M"},"android":{"priority":"HIGH"}}}"#)
        var empty = notification
        empty.payload = Array("{}".utf8)
        XCTAssertEqual(String(decoding: FCMGateway.requestBody(empty), as: UTF8.self), #"{"message":{"token":"abc:DEF-1_2"}}"#)
        XCTAssertTrue(FCMGateway.isUsableToken("abc:DEF-1_2.x"))
        for bad in ["", "a\"b", "a b", "é", String(repeating: "a", count: 4097)] { XCTAssertFalse(FCMGateway.isUsableToken(bad), bad) }
    }

    /// The openssl CLI's output (a generated key), or a skip when it failed.
    static func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XCTSkip("openssl \(arguments.joined(separator: " ")) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    private func openssl(_ arguments: [String]) throws -> String { try Self.openssl(arguments) }

    private func account(key: String, tokenURI: String = "https://oauth2.googleapis.com/token", project: String = "my-project") -> String {
        let file = ["type": "service_account", "project_id": project, "private_key_id": "k1", "private_key": key,
                    "client_email": "svc@my-project.iam.gserviceaccount.com", "token_uri": tokenURI]
        return String(decoding: try! JSONSerialization.data(withJSONObject: file), as: UTF8.self)  // test input, always valid
    }

    func testServiceAccountsAreCheckedAndTheAssertionCarriesTheClaims() throws {
        let rsa = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        let parsed = try FCMServiceAccount(json: account(key: rsa))
        XCTAssertEqual(parsed.projectID, "my-project")
        XCTAssertEqual(parsed.clientEmail, "svc@my-project.iam.gserviceaccount.com")

        let ec = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        let short = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let refusals: [(String, String)] = [
            ("not json", "not a JSON object"),
            (account(key: ec), "not an RSA key"),
            (account(key: short), "shorter than 2048 bits"),
            (account(key: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), "does not hold a readable private key"),
            (account(key: rsa, tokenURI: "http://oauth2.googleapis.com/token"), "token_uri"),
            (account(key: rsa, project: "My Project"), "project_id"),
        ]
        for (json, why) in refusals {
            XCTAssertThrowsError(try FCMServiceAccount(json: json)) { error in
                XCTAssertTrue("\(error)".contains(why), "\(error) should say \(why)")
                XCTAssertFalse("\(error)".contains("PRIVATE KEY"), "the key is never quoted")
            }
        }

        let cache = try OAuth2TokenCache(account: parsed, caFile: nil)
        let jwt = try XCTUnwrap(cache.assertion(at: 1_800_000_000))
        let parts = jwt.split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        func decode(_ part: Substring) throws -> [String: Any] {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: try XCTUnwrap(Data(base64Encoded: text))) as? [String: Any])
        }
        let header = try decode(parts[0]), claims = try decode(parts[1])
        XCTAssertEqual(header["alg"] as? String, "RS256")
        XCTAssertEqual(header["kid"] as? String, "k1")
        XCTAssertEqual(claims["iss"] as? String, parsed.clientEmail)
        XCTAssertEqual(claims["aud"] as? String, parsed.tokenURI)
        XCTAssertEqual(claims["scope"] as? String, "https://www.googleapis.com/auth/firebase.messaging")
        XCTAssertEqual(claims["iat"] as? Int, 1_800_000_000)
        XCTAssertEqual(claims["exp"] as? Int, 1_800_003_600)
        XCTAssertEqual(try decode(Substring(Base64URL.encode(Array("{}".utf8)))).count, 0)
        // 2048-bit RSA: a 256-byte signature.
        var signature = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        signature += String(repeating: "=", count: (4 - signature.count % 4) % 4)
        XCTAssertEqual(Data(base64Encoded: signature)?.count, 256)
    }
}
