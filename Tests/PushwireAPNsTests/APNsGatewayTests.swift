import Foundation
import PushwireDelivery
import XCTest

@testable import PushwireAPNs

/// End-to-end tests of the gateway against the APNs double (a real HTTP/2 TLS server).
/// Every test runs once per `APNsTransport`; a failure names the transport it happened with.
final class APNsGatewayTests: XCTestCase {
    /// The transport the running test body uses.
    private var transport = APNsTransport.nghttp2

    /// Runs `body` with each transport in turn.
    private func forEachTransport(_ body: () async throws -> Void) async throws {
        for transport in APNsTransport.allCases {
            self.transport = transport
            try await body()
        }
    }

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        super.recordFailure(withDescription: "[\(transport)] \(description)", inFile: filePath, atLine: lineNumber, expected: expected)
    }

    private func makeGateway(_ double: APNsDouble, _ configure: (inout APNsConfiguration) -> Void = { _ in }) throws -> APNsGateway {
        let credentials = try APNsCredentials(teamID: APNsDouble.teamID, keyID: APNsDouble.keyID, topic: APNsDouble.topic,
                                              p8PEM: APNsDouble.p8(), environment: .sandbox)
        var configuration = APNsConfiguration(baseURLOverride: double.baseURL, caFile: try APNsDouble.caFile(), transport: transport)
        configure(&configuration)
        return try APNsGateway(credentials: credentials, configuration: configuration)
    }

    private func notification(_ index: Int, token: String? = nil, payload: String? = nil) -> OutgoingNotification {
        OutgoingNotification(
            deliveryID: UInt64(index), messageCode: "M-1",
            deviceToken: token ?? String(format: "%064x", index + 1),
            payload: Array((payload ?? #"{"aps":{"alert":{"body":"hello \#(index)"},"category":"65"}}"#).utf8))
    }

    private func sentIDs(_ outcomes: [DeliveryOutcome]) -> [String] {
        outcomes.compactMap { if case .sent(let id) = $0 { return id } else { return nil } }
    }

    /// The apns-id of each request the double answered 200, in its log's order.
    private func acceptedIDs(_ records: [[String: Any]]) -> [String] {
        records.filter { $0["status"] as? Int == 200 }.compactMap { ($0["headers"] as? [String: String])?["apns-id"] }
    }

    /// What a service's GOAWAY (alone, or as it stops) may do to `count` notifications, given the
    /// apns-ids it `accepted`: none accepted twice, each one sent accepted. nghttp2 knows every
    /// stream the GOAWAY refused as such: all of them sent, each accepted once. libcurl now and
    /// then fails a refused stream as a framing error after sending all of it, which cannot be
    /// told from one the service acted on: a `.retry` (at most the `inFlight` streams), never a
    /// second send.
    private func assertEachSentOnce(_ outcomes: [DeliveryOutcome], accepted: [String], count: Int, inFlight: Int,
                                    file: StaticString = #filePath, line: UInt = #line) {
        let ids = sentIDs(outcomes)
        let notSent = outcomes.filter { if case .sent = $0 { false } else { true } }
        XCTAssertEqual(accepted.count, Set(accepted).count, "accepted at most once", file: file, line: line)
        XCTAssertTrue(Set(ids).isSubset(of: Set(accepted)), "each sent one accepted", file: file, line: line)
        if transport == .nghttp2 {
            XCTAssertEqual(ids.count, count, "every notification sent: \(notSent.prefix(3))", file: file, line: line)
            XCTAssertEqual(Set(accepted), Set(ids), file: file, line: line)
        } else {
            XCTAssertLessThanOrEqual(notSent.count, inFlight, "at most the streams in flight", file: file, line: line)
            for outcome in notSent {
                guard case .retry(let reason, _) = outcome, reason.hasPrefix("no answer after the request was sent") else {
                    return XCTFail("\(outcome)", file: file, line: line)
                }
            }
        }
    }

    func testRequestsCarryAValidTokenTheRightHeadersAndThePayload() async throws {
        try await forEachTransport {
            let double = try APNsDouble()
            let gateway = try makeGateway(double)
            var batch = [notification(0), notification(1), notification(2)]
            batch[1].priority = 5
            batch[1].expiration = 1_900_000_000
            batch[1].collapseID = "score-update"
            let outcomes = await gateway.deliver(batch)
            let ids = sentIDs(outcomes)
            XCTAssertEqual(ids.count, 3, "\(outcomes)")
            XCTAssertEqual(Set(ids).count, 3)

            let records = double.records()
            XCTAssertEqual(records.count, 3)
            for (index, item) in batch.enumerated() {
                guard let record = records.first(where: { ($0["headers"] as? [String: String])?["apns-id"] == ids[index] }) else {
                    XCTFail("no request with apns-id \(ids[index])"); continue
                }
                let headers = record["headers"] as? [String: String] ?? [:]
                XCTAssertEqual(record["jwt_ok"] as? Bool, true, "the double verified the ES256 signature and claims")
                XCTAssertEqual(record["method"] as? String, "POST")
                XCTAssertEqual(record["path"] as? String, "/3/device/\(item.deviceToken)")
                XCTAssertEqual(headers["apns-topic"], APNsDouble.topic)
                XCTAssertEqual(headers["apns-push-type"], "alert")
                XCTAssertEqual(headers["apns-priority"], String(item.priority))
                XCTAssertEqual(headers["apns-expiration"], String(item.expiration))
                XCTAssertEqual(headers["apns-collapse-id"], item.collapseID.isEmpty ? nil : item.collapseID)
                XCTAssertEqual(record["body"] as? String, String(decoding: item.payload, as: UTF8.self))
                XCTAssertTrue(record["body"].map { "\($0)" }?.contains(#""category":"65""#) ?? false)
            }
            // One token, reused by all three requests: header and claims as APNs wants them.
            let tokens = Set(records.compactMap { ($0["headers"] as? [String: String])?["authorization"] })
            XCTAssertEqual(tokens.count, 1)
            let parts = try XCTUnwrap(tokens.first).dropFirst("bearer ".count).split(separator: ".")
            XCTAssertEqual(parts.count, 3)
            let header = try XCTUnwrap(decodeSegment(parts[0]))
            let claims = try XCTUnwrap(decodeSegment(parts[1]))
            XCTAssertEqual(header["alg"] as? String, "ES256")
            XCTAssertEqual(header["kid"] as? String, APNsDouble.keyID)
            XCTAssertEqual(claims["iss"] as? String, APNsDouble.teamID)
            let iat = try XCTUnwrap(claims["iat"] as? Int)
            XCTAssertLessThan(abs(Int(Date().timeIntervalSince1970) - iat), 60)
            XCTAssertEqual(gateway.providerTokensSigned, 1)
        }
    }

    func testEachResponseClassBecomesTheDocumentedOutcome() async throws {
        try await forEachTransport {
            let tokens = (0..<8).map { String(format: "%064x", 0xA000 + $0) }
            let double = try APNsDouble([
                "--rule", "\(tokens[0])=410:Unregistered",
                "--rule", "\(tokens[1])=400:BadDeviceToken",
                "--rule", "\(tokens[2])=400:DeviceTokenNotForTopic",
                "--rule", "\(tokens[3])=429:TooManyRequests:7",
                "--rule", "\(tokens[4])=500:InternalServerError",
                "--rule", "\(tokens[5])=503:ServiceUnavailable",
                "--rule", "\(tokens[6])=403:InvalidProviderToken",
            ])
            let gateway = try makeGateway(double)
            let large = #"{"aps":{"alert":"\#(String(repeating: "x", count: 4100))"}}"#
            let batch = tokens.indices.map { notification($0, token: tokens[$0]) }
                + [notification(8, payload: large), notification(9, token: "not-hex"), notification(10)]
            var withCollapse = notification(11)
            withCollapse.collapseID = String(repeating: "c", count: 65)
            let outcomes = await gateway.deliver(batch + [withCollapse])
            XCTAssertEqual(outcomes[0], .deadToken(reason: "Unregistered", since: 1_754_000_000_000))
            XCTAssertEqual(outcomes[1], .invalidToken(reason: "BadDeviceToken"))
            XCTAssertEqual(outcomes[2], .invalidToken(reason: "DeviceTokenNotForTopic"))
            XCTAssertEqual(outcomes[3], .retry(reason: "TooManyRequests", after: .seconds(7)))
            XCTAssertEqual(outcomes[4], .retry(reason: "InternalServerError", after: nil))
            XCTAssertEqual(outcomes[5], .retry(reason: "ServiceUnavailable", after: nil))
            XCTAssertEqual(outcomes[6], .failed(reason: "InvalidProviderToken"))
            guard case .sent = outcomes[7] else { return XCTFail("\(outcomes[7])") }
            XCTAssertEqual(outcomes[8], .failed(reason: "PayloadTooLarge"))
            XCTAssertEqual(outcomes[9], .invalidToken(reason: "BadDeviceToken"), "a non-hex token never reaches the path")
            guard case .sent = outcomes[10] else { return XCTFail("\(outcomes[10])") }
            XCTAssertEqual(outcomes[11], .failed(reason: "BadCollapseId"))
            XCTAssertEqual(double.records().count, 10, "refused locally: the non-hex token and the long collapse id")
        }
    }

    func testExpiredProviderTokenIsRefreshedOnceAndTheRequestRetried() async throws {
        try await forEachTransport {
            let double = try APNsDouble(["--expire-first-jwt"])
            let gateway = try makeGateway(double)
            let first = await gateway.deliver([notification(0)])
            guard case .sent(let id) = first[0] else { return XCTFail("\(first)") }
            let records = double.records()
            XCTAssertEqual(records.map { $0["status"] as? Int }, [403, 200])
            XCTAssertEqual(records[0]["reason"] as? String, "ExpiredProviderToken")
            let authorizations = records.map { ($0["headers"] as? [String: String])?["authorization"] }
            XCTAssertNotEqual(authorizations[0], authorizations[1], "the retry carries a new token")
            XCTAssertEqual(records.map { ($0["headers"] as? [String: String])?["apns-id"] }, [id, id])
            XCTAssertEqual(gateway.providerTokensSigned, 2)

            // The new token is kept: later deliveries do not sign again.
            let more = await gateway.deliver((1..<20).map { notification($0) })
            XCTAssertEqual(sentIDs(more).count, 19)
            XCTAssertEqual(gateway.providerTokensSigned, 2)
        }
    }

    func testGoAwayMidStreamLosesAndDuplicatesNothing() async throws {
        try await forEachTransport {
            let double = try APNsDouble(["--goaway-after", "25"])
            let gateway = try makeGateway(double) { $0.maxConcurrentStreams = 20 }
            let count = 300
            let outcomes = await gateway.deliver((0..<count).map { notification($0) })
            assertEachSentOnce(outcomes, accepted: acceptedIDs(double.records()), count: count, inFlight: 20)
            XCTAssertGreaterThan(Set(double.records().compactMap { $0["connection"] as? Int }).count, 10, "GOAWAY forced reconnections")
        }
    }

    /// A request APNs received whole but whose answer was lost with its connection may have been
    /// delivered: it comes back as `.retry` (the pipeline's new attempt record sends it again),
    /// never sent again within its attempt. The double accepts every 26th request of a
    /// connection and closes the connection without answering it or sending GOAWAY.
    func testARequestWhoseAnswerWasLostIsNotSentAgainInItsAttempt() async throws {
        try await forEachTransport {
            let double = try APNsDouble(["--drop-after", "25"])
            let gateway = try makeGateway(double) { $0.maxConcurrentStreams = 1 }
            let count = 120
            let outcomes = await gateway.deliver((0..<count).map { notification($0) })
            let records = double.records()
            let accepted = acceptedIDs(records)
            XCTAssertEqual(accepted.count, Set(accepted).count, "no request accepted twice: \(accepted.count - Set(accepted).count) duplicates")
            let dropped = records.filter { $0["dropped"] as? Bool == true }
            XCTAssertGreaterThanOrEqual(dropped.count, 3, "answers were lost")
            let droppedTokens = Set(dropped.compactMap { ($0["path"] as? String)?.split(separator: "/").last.map(String.init) })
            for (index, outcome) in outcomes.enumerated() {
                let token = String(format: "%064x", index + 1)
                if droppedTokens.contains(token) {
                    guard case .retry(let reason, _) = outcome else { return XCTFail("#\(index), answer lost: \(outcome)") }
                    XCTAssertTrue(reason.hasPrefix("no answer after the request was sent"), reason)
                } else if case .sent = outcome {
                } else {
                    XCTFail("#\(index): \(outcome)")
                }
            }
            XCTAssertEqual(Set(sentIDs(outcomes)).count, count - droppedTokens.count, "every other notification sent once")
            XCTAssertEqual(gateway.unansweredAfterSendingCount, droppedTokens.count, "counted for /metrics")
        }
    }

    func testRestartOfTheServiceMidBatchLosesAndDuplicatesNothing() async throws {
        try await forEachTransport {
            let first = try APNsDouble(["--delay-ms", "2"])
            // The service is down from `stop()` until the second double (a Python process) is
            // listening again, which takes a few seconds on a loaded machine. The default
            // policy's budget (8 attempts, at least ~2.6 s of backoff with its jitter) is what a
            // caller wants before handing a notification back as `.retry` for the store to
            // reschedule, and under load it ran out before the double was back — so the test
            // flaked on timing, not on a loss. This gateway's budget (at least ~6.6 s) outlasts
            // the restart; what is asserted is unchanged: every notification sent, each
            // accepted exactly once across both lives of the service.
            let gateway = try makeGateway(first) {
                $0.maxConcurrentStreams = 50
                $0.retryPolicy = APNsRetryPolicy(maxAttempts: 30, initialBackoff: .milliseconds(50), maxBackoff: .milliseconds(500))
            }
            let count = 1500
            let batch = (0..<count).map { notification($0) }
            let delivery = Task { await gateway.deliver(batch) }
            let deadline = Date().addingTimeInterval(20)
            while first.records().count < 300 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            first.stop()
            XCTAssertLessThan(first.records().count, count, "the restart happened mid-batch")
            let second = try APNsDouble(["--delay-ms", "2"], port: first.port, logPath: first.logPath)
            let outcomes = await delivery.value
            // Across both lives of the service.
            assertEachSentOnce(outcomes, accepted: acceptedIDs(second.records()), count: count, inFlight: 50)
            XCTAssertGreaterThan(gateway.connectionRetryCount, 0, "the requests the stopping service refused were sent again")
        }
    }

    func testInFlightWorkIsBoundedByTheWindow() async throws {
        try await forEachTransport {
            let double = try APNsDouble(["--delay-ms", "20"])
            let gateway = try makeGateway(double) {
                $0.maxConnections = 2
                $0.maxConcurrentStreams = 4
                $0.maxInFlight = 6
            }
            let outcomes = await gateway.deliver((0..<60).map { notification($0) })
            XCTAssertEqual(sentIDs(outcomes).count, 60)
            XCTAssertEqual(gateway.peakInFlight, 6, "deliver waited for the window rather than queueing")
            let records = double.records()
            let peakStreams = records.compactMap { $0["peak_open_streams"] as? Int }.max() ?? 0
            XCTAssertLessThanOrEqual(peakStreams, 6)
            XCTAssertLessThanOrEqual(Set(records.compactMap { $0["connection"] as? Int }).count, 2)
        }
    }

    func testTheServersConcurrentStreamLimitIsRespectedFromTheFirstRequest() async throws {
        // nghttp2 only: libcurl 7.88 gets every notification through here too, but only after a
        // connection retry each (40 for 40, about 30 s) — see docs/journal/2026-11-29-apns-gateway.md, third pass.
        transport = .nghttp2
        do {
            // The double ends a connection that opens more streams than its SETTINGS allow.
            let double = try APNsDouble(["--max-streams", "3", "--delay-ms", "10"])
            let gateway = try makeGateway(double) { $0.maxConnections = 1 }
            let outcomes = await gateway.deliver((0..<40).map { notification($0) })
            XCTAssertEqual(sentIDs(outcomes).count, 40)
            let records = double.records()
            XCTAssertLessThanOrEqual(records.compactMap { $0["peak_open_streams"] as? Int }.max() ?? 0, 3)
            XCTAssertEqual(Set(records.compactMap { $0["connection"] as? Int }).count, 1, "no connection was refused or dropped")
            XCTAssertEqual(gateway.connectionRetryCount, 0)
        }
    }

    func testConnectionFailuresBecomeRetryAfterTheRetryPolicy() async throws {
        try await forEachTransport {
            let double = try APNsDouble()
            let port = double.port
            double.stop()
            let credentials = try APNsCredentials(teamID: APNsDouble.teamID, keyID: APNsDouble.keyID, topic: APNsDouble.topic,
                                                  p8PEM: APNsDouble.p8(), environment: .production)
            let gateway = try APNsGateway(credentials: credentials, configuration: APNsConfiguration(
                baseURLOverride: "https://127.0.0.1:\(port)", caFile: try APNsDouble.caFile(),
                retryPolicy: APNsRetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10)), transport: transport))
            let outcomes = await gateway.deliver([notification(0)])
            guard case .retry(let reason, nil) = outcomes[0] else { return XCTFail("\(outcomes)") }
            XCTAssertTrue(reason.hasPrefix("connection failed"), reason)
            XCTAssertEqual(gateway.connectionRetryCount, 2)
        }
    }

    /// A request sent whole that passes its deadline may have been delivered: it is reset and
    /// given back as `.retry` (a new attempt record), not sent again within its attempt.
    func testARequestWithoutAnAnswerInTimeIsResetAndGivenBackAsARetry() async throws {
        try await forEachTransport {
            let double = try APNsDouble(["--delay-ms", "3000"])
            let gateway = try makeGateway(double) {
                $0.requestTimeout = .milliseconds(300)
                $0.retryPolicy = APNsRetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(10))
            }
            let started = ContinuousClock.now
            let outcomes = await gateway.deliver([notification(0)])
            guard case .retry(let reason, nil) = outcomes[0] else { return XCTFail("\(outcomes)") }
            XCTAssertTrue(reason.hasPrefix("no answer after the request was sent"), reason)
            XCTAssertLessThan(started.duration(to: .now), .milliseconds(2500), "given up on before the double answered")
            XCTAssertEqual(gateway.connectionRetryCount, 0, "not sent again in its attempt")
            XCTAssertEqual(gateway.unansweredAfterSendingCount, 1)
        }
    }

    func testIPv6AndHostNamesAreVerifiedAgainstTheCertificate() async throws {
        try await forEachTransport {
            let v6 = try APNsDouble(["--host", "::1"])
            let overIPv6 = try makeGateway(v6) { $0.baseURLOverride = "https://[::1]:\(v6.port)" }
            let first = await overIPv6.deliver([notification(0)])
            guard case .sent = first[0] else { return XCTFail("[::1]: \(first)") }
            // "localhost" is in the certificate's DNS names.
            let v4 = try APNsDouble()
            let byName = try makeGateway(v4) { $0.baseURLOverride = "https://localhost:\(v4.port)" }
            let second = await byName.deliver([notification(1)])
            guard case .sent = second[0] else { return XCTFail("localhost: \(second)") }
            // 127.0.0.2 is loopback too, but not among the certificate's IP names: refused.
            let elsewhere = try APNsDouble(["--host", "127.0.0.2"])
            let wrongName = try makeGateway(elsewhere) {
                $0.baseURLOverride = "https://127.0.0.2:\(elsewhere.port)"
                $0.retryPolicy = APNsRetryPolicy(maxAttempts: 1)
            }
            let third = await wrongName.deliver([notification(2)])
            guard case .retry(let reason, _) = third[0] else { return XCTFail("127.0.0.2: \(third)") }
            XCTAssertTrue(reason.lowercased().contains("certificate"), reason)
            XCTAssertEqual(elsewhere.records().count, 0)
        }
    }

    func testAnUntrustedServerIsRefused() async throws {
        try await forEachTransport {
            let double = try APNsDouble()
            let credentials = try APNsCredentials(teamID: APNsDouble.teamID, keyID: APNsDouble.keyID, topic: APNsDouble.topic,
                                                  p8PEM: APNsDouble.p8(), environment: .production)
            // No CA file: the system store does not trust the throw-away CA, and verification stays on.
            let gateway = try APNsGateway(credentials: credentials, configuration: APNsConfiguration(
                baseURLOverride: double.baseURL, retryPolicy: APNsRetryPolicy(maxAttempts: 1), transport: transport))
            let outcomes = await gateway.deliver([notification(0)])
            guard case .retry = outcomes[0] else { return XCTFail("\(outcomes)") }
            XCTAssertEqual(double.records().count, 0)
        }
    }

    func testACertificateFromAnotherCAIsRefusedWithAClearReason() async throws {
        try await forEachTransport {
            let double = try APNsDouble()
            // Another throw-away CA: valid, but not the one that signed the double's certificate.
            let other = FileManager.default.temporaryDirectory.appendingPathComponent("pushwire-apns-other-ca-\(getpid())")
            guard APNsDouble.run(APNsDouble.scriptsDirectory.appendingPathComponent("make-certs").path, [other.path]) == 0 else {
                throw XCTSkip("make-certs failed")
            }
            defer { try? FileManager.default.removeItem(at: other) }
            let gateway = try makeGateway(double) {
                $0.caFile = other.appendingPathComponent("ca.pem").path
                $0.retryPolicy = APNsRetryPolicy(maxAttempts: 1)
            }
            let outcomes = await gateway.deliver([notification(0)])
            guard case .retry(let reason, _) = outcomes[0] else { return XCTFail("\(outcomes)") }
            XCTAssertTrue(reason.lowercased().contains("certificate"), reason)
            XCTAssertEqual(double.records().count, 0)
        }
    }

    func testAServerThatDoesNotSelectH2IsRefusedWithAClearReason() async throws {
        // libcurl falls back to HTTP/1.1 on its own; refusing is the nghttp2 transport's behaviour.
        transport = .nghttp2
        let double = try APNsDouble(["--alpn", "http/1.1"])
        let gateway = try makeGateway(double) { $0.retryPolicy = APNsRetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(5)) }
        let outcomes = await gateway.deliver([notification(0)])
        XCTAssertEqual(outcomes, [.retry(reason: "connection failed: the server did not select HTTP/2 (ALPN h2)", after: nil)])
        XCTAssertEqual(double.records().count, 0)
        XCTAssertEqual(gateway.connectionRetryCount, 1)
    }

    func testShutdownDoesNotWaitForAServerThatNeverAnswersTheHandshake() async throws {
        // The kernel accepts TCP connections on a listening socket nobody accepts from, so the
        // connect succeeds and the TLS handshake waits for a ServerHello that never comes.
        transport = .nghttp2
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        XCTAssertTrue(bound)
        let credentials = try APNsCredentials(teamID: APNsDouble.teamID, keyID: APNsDouble.keyID, topic: APNsDouble.topic,
                                              p8PEM: APNsDouble.p8(), environment: .production)
        var configuration = APNsConfiguration(baseURLOverride: "https://127.0.0.1:\(UInt16(bigEndian: address.sin_port))",
                                              caFile: try APNsDouble.caFile(), transport: transport)
        configuration.connectTimeout = .seconds(30)
        let gateway = try APNsGateway(credentials: credentials, configuration: configuration)
        let pending = [notification(0)]
        let delivery = Task { [gateway] in await gateway.deliver(pending) }
        // The gateway is in its handshake once its connection waits in the listener's queue.
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&waiting, 1, 10_000), 1, "the gateway did not connect within 10 s")
        let stopped = ContinuousClock.now
        gateway.shutdown()
        let outcomes = await delivery.value
        XCTAssertLessThan(stopped.duration(to: .now), .seconds(2), "shutdown waited for the connect timeout")
        XCTAssertEqual(outcomes, [.retry(reason: "gateway shut down", after: nil)])
        XCTAssertEqual(gateway.connectionRetryCount, 0, "a connect given up for a shutdown is no failed attempt")
    }

    func testTheDefaultTransportIsNGHTTP2() {
        XCTAssertEqual(APNsConfiguration().transport, .nghttp2)
    }

    private func decodeSegment(_ segment: Substring) -> [String: Any]? {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}
