import PushwireDelivery
import Synchronization
import XCTest

@testable import PushwireAPNs

/// The provider token (ES256 JWT) and the key checks, without a network.
final class ProviderTokenTests: XCTestCase {
    /// A throw-away P-256 key made for these tests.
    static let p256 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnB+pbR+3Aw2Jy8ee
        K/NdDDKMtImlJK1q6WZscRlo2gahRANCAATeQJdsd4j+IKwF5aePOcrmr66ijtqe
        AML6L8nwJrM+eaJfducZ2pnLSNWAIbcjRoB+nAEDqmIt6kPF4IDtZe2t
        -----END PRIVATE KEY-----
        """
    /// A throw-away key on secp256k1: an EC key, but not on the curve APNs uses.
    static let secp256k1 = """
        -----BEGIN PRIVATE KEY-----
        MIGEAgEAMBAGByqGSM49AgEGBSuBBAAKBG0wawIBAQQgU9Wru2DkaDNSkG7hAqXg
        qhEqfe3fmNNneJfWRjgtid6hRANCAAQ5x/Bcep2oeqW7xzQpznD9GpL6zPw3Kgbf
        3DETvzdVCUzgQngm87pW4SK+Ue0XogY/9+q1QK80syhQAkY4LtES
        -----END PRIVATE KEY-----
        """
    /// A throw-away Ed25519 key: not elliptic-curve ECDSA at all.
    static let ed25519 = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIBvdKBSql5FG1xYtqZ0ZzZPheK6wToPUNEDlrVFASR6b
        -----END PRIVATE KEY-----
        """

    private func credentials() throws -> APNsCredentials {
        try APNsCredentials(teamID: "TEAM", keyID: "KEY", topic: "com.example", p8PEM: Self.p256, environment: .production)
    }

    func testKeysThatAreNotP256PrivateKeysAreRejected() throws {
        XCTAssertNoThrow(try APNsCredentials.validate(p8: Self.p256))
        for (name, pem) in [("secp256k1", Self.secp256k1), ("ed25519", Self.ed25519), ("garbage", "hello"),
                            ("truncated", String(Self.p256.prefix(120)) + "\n-----END PRIVATE KEY-----"), ("empty", "")] {
            XCTAssertThrowsError(try APNsCredentials.validate(p8: pem), name) { error in
                guard case APNsCredentialError.invalidKey = error else { return XCTFail("\(name): \(error)") }
            }
        }
        XCTAssertThrowsError(try APNsCredentials(teamID: "TEAM\r\nx: y", keyID: "KEY", topic: "t", p8PEM: Self.p256, environment: .sandbox))
        XCTAssertThrowsError(try APNsCredentials(teamID: "TEAM", keyID: "", topic: "t", p8PEM: Self.p256, environment: .sandbox))
    }

    func testTheTokenHasTheJOSEShapeAPNsExpects() throws {
        let cache = try ProviderTokenCache(credentials: credentials(), refreshSeconds: 40 * 60, now: { 1_800_000_000 })
        let token = try XCTUnwrap(cache.current())
        let parts = token.split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts[0], Substring(Base64URL.encode(Array(#"{"alg":"ES256","kid":"KEY"}"#.utf8))))
        XCTAssertEqual(parts[1], Substring(Base64URL.encode(Array(#"{"iss":"TEAM","iat":1800000000}"#.utf8))))
        XCTAssertEqual(parts[2].count, 86, "64 raw bytes, base64url without padding")
        XCTAssertFalse(token.contains("="))
    }

    func testTheTokenIsReusedAndRefreshedNoMoreOftenThanEveryTwentyMinutes() throws {
        let clock = Mutex<Int64>(1_800_000_000)
        // A configured age below the floor is raised to 20 minutes.
        let cache = try ProviderTokenCache(credentials: credentials(), refreshSeconds: 5 * 60, now: { clock.withLock { $0 } })
        let first = cache.current()
        clock.withLock { $0 += 19 * 60 }
        XCTAssertEqual(cache.current(), first)
        clock.withLock { $0 += 60 }
        let second = cache.current()
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(cache.signedCount, 2)
        XCTAssertEqual(APNsConfiguration(tokenRefreshAge: .seconds(60)).clampedTokenRefreshSeconds, 20 * 60)
        XCTAssertEqual(APNsConfiguration(tokenRefreshAge: .seconds(3 * 3600)).clampedTokenRefreshSeconds, 50 * 60)
        XCTAssertEqual(APNsConfiguration().clampedTokenRefreshSeconds, 40 * 60)
    }

    func testExpiredProviderTokenForcesOneRefreshPerRejectedToken() throws {
        let clock = Mutex<Int64>(1_800_000_000)
        let cache = try ProviderTokenCache(credentials: credentials(), refreshSeconds: 40 * 60, now: { clock.withLock { $0 } })
        let rejected = try XCTUnwrap(cache.current())
        let replacement = cache.replace(expired: rejected)
        XCTAssertNotEqual(replacement, rejected)
        // Other requests rejected with the same old token get the replacement, not another token.
        XCTAssertEqual(cache.replace(expired: rejected), replacement)
        XCTAssertEqual(cache.current(), replacement)
        // A second forced refresh within a minute is refused: the clock, not the token, is wrong.
        clock.withLock { $0 += 10 }
        XCTAssertEqual(cache.replace(expired: try XCTUnwrap(replacement)), replacement)
        clock.withLock { $0 += 60 }
        XCTAssertNotEqual(cache.replace(expired: try XCTUnwrap(replacement)), replacement)
        XCTAssertEqual(cache.signedCount, 3)
    }

    func testDERSignaturesBecomeFixedWidthRS() throws {
        let r = [UInt8](repeating: 0x81, count: 32)   // high bit set: DER prefixes a zero byte
        let s = [UInt8](repeating: 0x11, count: 31)   // short: must be left-padded to 32
        let der: [UInt8] = [0x30, UInt8(2 + 33 + 2 + 31), 0x02, 33, 0x00] + r + [0x02, 31] + s
        XCTAssertEqual(JWTSigner.joseSignature(fromDER: der), r + [0] + s)
        XCTAssertNil(JWTSigner.joseSignature(fromDER: [0x30, 0x01, 0x00]))
    }

    func testBase64URL() {
        XCTAssertEqual(Base64URL.encode([UInt8]()), "")
        XCTAssertEqual(Base64URL.encode(Array("f".utf8)), "Zg")
        XCTAssertEqual(Base64URL.encode(Array("fo".utf8)), "Zm8")
        XCTAssertEqual(Base64URL.encode(Array("foo".utf8)), "Zm9v")
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF, 0xBF]), "-_-_")
    }

    func testResponseMapping() {
        func verdict(_ status: Int, _ body: String, retryAfter: Duration? = nil) -> APNsVerdict {
            APNsResponse.verdict(status: status, body: Array(body.utf8), apnsID: "id", retryAfter: retryAfter)
        }
        XCTAssertEqual(verdict(200, ""), .outcome(.sent(apnsID: "id")))
        XCTAssertEqual(verdict(410, #"{"reason":"ExpiredToken","timestamp":1700000000000}"#),
                       .outcome(.deadToken(reason: "ExpiredToken", since: 1_700_000_000_000)))
        XCTAssertEqual(verdict(410, #"{"reason":"Unregistered"}"#), .outcome(.deadToken(reason: "Unregistered", since: nil)))
        XCTAssertEqual(verdict(400, #"{"reason":"BadDeviceToken"}"#), .outcome(.invalidToken(reason: "BadDeviceToken")))
        XCTAssertEqual(verdict(400, #"{"reason":"BadTopic"}"#), .outcome(.failed(reason: "BadTopic")))
        XCTAssertEqual(verdict(403, #"{"reason":"ExpiredProviderToken"}"#), .refreshTokenAndRetry)
        XCTAssertEqual(verdict(429, #"{"reason":"TooManyProviderTokenUpdates"}"#, retryAfter: .seconds(3)),
                       .outcome(.retry(reason: "TooManyProviderTokenUpdates", after: .seconds(3))))
        XCTAssertEqual(verdict(503, "not json"), .outcome(.retry(reason: "HTTP 503", after: nil)))
        XCTAssertEqual(verdict(413, #"{"reason":"PayloadTooLarge"}"#), .outcome(.failed(reason: "PayloadTooLarge")))
        XCTAssertEqual(APNsResponse.retryAfter(" 120\r\n"), .seconds(120))
        XCTAssertNil(APNsResponse.retryAfter(" Wed, 21 Oct 2015 07:28:00 GMT\r\n"))
    }

    func testRequestIDsAreVersion4UUIDs() {
        let id = APNsRequestID.make()
        XCTAssertEqual(id.count, 36)
        XCTAssertEqual(id.split(separator: "-").map(\.count), [8, 4, 4, 4, 12])
        XCTAssertEqual(Array(id)[14], "4")
        XCTAssertNotEqual(APNsRequestID.make(), id)
        // Every id: lowercase hex, version 4, RFC 4122 variant, distinct.
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = Array(APNsRequestID.make().utf8)
            XCTAssertEqual(id.count, 36)
            for (index, byte) in id.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    XCTAssertEqual(byte, UInt8(ascii: "-"))
                } else {
                    XCTAssertTrue(Array("0123456789abcdef".utf8).contains(byte), "\(String(decoding: id, as: UTF8.self))")
                }
            }
            XCTAssertEqual(id[14], UInt8(ascii: "4"))
            XCTAssertTrue(Array("89ab".utf8).contains(id[19]), "\(String(decoding: id, as: UTF8.self))")
            seen.insert(String(decoding: id, as: UTF8.self))
        }
        XCTAssertEqual(seen.count, 1000)
    }

    func testOnlyHexDeviceTokensAreSent() {
        func refused(_ token: String) -> DeliveryOutcome? {
            APNsGateway.refusal(for: OutgoingNotification(deliveryID: 1, messageCode: "M", deviceToken: token, payload: [], deviceType: 1))
        }
        XCTAssertNil(refused("0123456789abcdefABCDEF"))
        XCTAssertNil(refused(String(repeating: "a", count: 200)))
        // A bridged or substring-backed token takes the iterator path; the same answer.
        XCTAssertNil(refused(String(Substring("xx00ff").dropFirst(2))))
        for bad in ["", String(repeating: "a", count: 201), "abcg", "ab cd", "ab/../cd", "ab\u{0}", "abé", "ab\r\n"] {
            XCTAssertEqual(refused(bad), .invalidToken(reason: "BadDeviceToken"), bad)
        }
    }

    func testStatusIsReadFromThreeDigitsOnly() {
        func status(_ text: String) -> Int {
            Array(text.utf8).withUnsafeBufferPointer { NGHTTP2Connection.status($0) }
        }
        XCTAssertEqual(status("200"), 200)
        XCTAssertEqual(status("410"), 410)
        XCTAssertEqual(status("503"), 503)
        XCTAssertEqual(status(""), 0)
        XCTAssertEqual(status("20"), 0)
        XCTAssertEqual(status("2000"), 0)
        XCTAssertEqual(status("2a0"), 0)
        XCTAssertEqual(status(" 200"), 0)
    }
}
