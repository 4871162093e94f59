import CNGHTTP2
import PushwireDelivery
import XCTest

@testable import PushwireAPNs

/// The request header lists the nghttp2 transport hands to nghttp2, without a network: the same
/// headers, in the same order, as the libcurl transport's lines, pseudo-headers first.
final class NGHTTP2HeaderBlockTests: XCTestCase {
    /// The headers as nghttp2 receives them: name, value, flags.
    private func entries(_ block: NGHTTP2HeaderBlock) -> [(name: String, value: String, flags: UInt8)] {
        var list: [nghttp2_nv] = []
        return block.withEntries(&list) { list in
            list.map { nv in
                (String(decoding: UnsafeBufferPointer(start: nv.name, count: nv.namelen), as: UTF8.self),
                 String(decoding: UnsafeBufferPointer(start: nv.value, count: nv.valuelen), as: UTF8.self), nv.flags)
            }
        }
    }

    private func job(_ notification: OutgoingNotification, apnsID: String = "8f2c1d3e-0000-4000-8000-000000000001") -> APNsJob {
        let window = InFlightWindow(size: 1)
        return APNsJob(notification: notification, apnsID: apnsID, batch: BatchCollector(count: 1, window: window), index: 0)
    }

    func testPseudoHeadersGoFirstAndTheSharedPartSurvivesEachRequest() {
        var block = NGHTTP2HeaderBlock()
        block.append(":method", "POST")
        block.append(":scheme", "https")
        block.append(":authority", "api.push.apple.com")
        block.append("authorization", "bearer ", "abc.def.ghi")
        let shared = block.count
        for (token, id) in [("aa", "id-1"), ("bbbb", "id-2")] {
            block.removeAll(keepingFirst: shared)
            block.append(":path", "/3/device/", token)
            block.append("apns-id", id, indexed: false)
            let sent = entries(block)
            XCTAssertEqual(sent.map(\.name), [":method", ":scheme", ":authority", ":path", "authorization", "apns-id"])
            XCTAssertEqual(sent.map(\.value), ["POST", "https", "api.push.apple.com", "/3/device/\(token)", "bearer abc.def.ghi", id])
            // Names are read in place (static literals); only the apns-id stays out of HPACK's table.
            let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue), noIndex = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
            XCTAssertEqual(sent.map(\.flags), [noCopy, noCopy, noCopy, noCopy, noCopy, noCopy | noIndex])
            XCTAssertEqual(block.fields.map(\.name), [":method", ":scheme", ":authority", "authorization", ":path", "apns-id"])
        }
        block.removeAll()
        XCTAssertEqual(block.count, 0)
        XCTAssertTrue(entries(block).isEmpty)
    }

    func testNumbersAreWrittenInDecimal() {
        var block = NGHTTP2HeaderBlock()
        let numbers: [Int64] = [0, 5, 10, 1_900_000_000, -1, -42, .max, .min]
        for number in numbers { block.append("apns-expiration", decimal: number) }
        XCTAssertEqual(block.fields.map(\.value), numbers.map { String($0) })
        XCTAssertEqual(entries(block).map(\.value), numbers.map { String($0) })
    }

    /// Both transports take the APNs headers from one place: what nghttp2 is given (as a
    /// connection lays it out: pseudo-headers, shared, then per request) is the libcurl list
    /// plus the pseudo-headers, for notifications with and without their optional fields.
    func testTheNGHTTP2HeadersAreTheLibcurlHeaders() throws {
        var plain = OutgoingNotification(deliveryID: 1, messageCode: "M", deviceToken: String(repeating: "ab", count: 32), payload: [])
        var full = plain
        full.priority = 5
        full.expiration = 1_900_000_000
        full.collapseID = "score-update"
        full.pushType = "background"
        plain.deviceToken = "0123456789ABCDEF"
        var block = NGHTTP2HeaderBlock()
        block.append(":method", "POST")
        block.append(":scheme", "https")
        block.append(":authority", "127.0.0.1:8443")
        APNsRequest.appendSharedHeaders(topic: "com.example.app", token: "h.c.s", to: &block)
        let shared = block.count
        let credentials = try APNsCredentials(teamID: "TEAM", keyID: "KEY", topic: "com.example.app", p8PEM: ProviderTokenTests.p256, environment: .production)
        let profile = APNsProfile(topic: "com.example.app", tokens: try ProviderTokenCache(credentials: credentials, refreshSeconds: 1800))
        for notification in [plain, full, plain] {
            let job = job(notification)
            block.removeAll(keepingFirst: shared)
            profile.appendRequestHeaders(for: job, to: &block)
            let sent = entries(block)
            let curl = APNsRequest.headers(for: job, topic: "com.example.app", token: "h.c.s")
            XCTAssertEqual(sent.prefix(4).map { "\($0.name): \($0.value)" },
                           [":method: POST", ":scheme: https", ":authority: 127.0.0.1:8443", ":path: \(APNsRequest.path(for: notification))"])
            XCTAssertEqual(sent.dropFirst(4).map { "\($0.name): \($0.value)" }, curl.map { "\($0.name): \($0.value)" })
            XCTAssertEqual(curl.first { $0.name == "apns-expiration" }?.value, String(notification.expiration))
            XCTAssertEqual(curl.first { $0.name == "apns-priority" }?.value, String(notification.priority))
            XCTAssertEqual(curl.first { $0.name == "apns-collapse-id" }?.value, notification.collapseID.isEmpty ? nil : notification.collapseID)
            XCTAssertEqual(curl.first { $0.name == "authorization" }?.value, "bearer h.c.s")
        }
    }
}
