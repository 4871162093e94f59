import Foundation
import Synchronization
import XCTest
@testable import PushwireAPNs

/// The access-token cache's timing rules with an injected grant and clock: a grant never runs on
/// the caller's thread, the token is replaced ahead of its expiry while the old one is still
/// handed out, a failed grant is counted and tried again after a backoff, and a 401 replaces the
/// token once (at most once per 10 s).
final class OAuth2TokenCacheTests: XCTestCase {
    /// A grant the test answers by hand: each call blocks until the test gives its result.
    private final class ManualGrant: Sendable {
        private let state = Mutex<(calls: Int, answers: [Result<OAuth2TokenCache.Granted, OAuth2TokenCache.GrantFailure>])>((0, []))
        private let answered = DispatchSemaphore(value: 0)

        var calls: Int { state.withLock { $0.calls } }

        func grant(_ assertion: String) -> Result<OAuth2TokenCache.Granted, OAuth2TokenCache.GrantFailure> {
            state.withLock { $0.calls += 1 }
            // Bounded: a test that forgets to answer fails instead of hanging.
            guard answered.wait(timeout: .now() + 20) == .success else { return .failure(.init(reason: "test gave no answer")) }
            return state.withLock { $0.answers.removeFirst() }
        }

        func answer(_ result: Result<OAuth2TokenCache.Granted, OAuth2TokenCache.GrantFailure>) {
            state.withLock { $0.answers.append(result) }
            answered.signal()
        }
    }

    private final class Clock: Sendable {
        private let time = Mutex<Int64>(1_800_000_000)
        var now: Int64 { time.withLock { $0 } }
        func advance(_ seconds: Int64) { time.withLock { $0 += seconds } }
    }

    nonisolated(unsafe) private static var rsaKey: String?

    private func account() throws -> FCMServiceAccount {
        if Self.rsaKey == nil {
            Self.rsaKey = try FCMGatewayTests.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        }
        let file = ["type": "service_account", "project_id": "my-project", "private_key": Self.rsaKey ?? "",
                    "client_email": "svc@p.iam.gserviceaccount.com", "token_uri": "https://127.0.0.1:9/token"]
        return try FCMServiceAccount(json: String(decoding: try JSONSerialization.data(withJSONObject: file), as: UTF8.self))
    }

    private func cache(_ grant: ManualGrant, _ clock: Clock) throws -> OAuth2TokenCache {
        try OAuth2TokenCache(account: account(), now: { clock.now }, grant: { grant.grant($0) })
    }

    /// Waits (bounded) until the cache's grant has settled.
    private func settled(_ cache: OAuth2TokenCache) {
        let done = expectation(description: "grant settled")
        cache.whenSettled { done.fulfill() }
        wait(for: [done], timeout: 10)
    }

    /// Waits (bounded) until `grant` has been called `count` times.
    private func waitForCalls(_ grant: ManualGrant, _ count: Int) {
        let deadline = Date().addingTimeInterval(10)
        while grant.calls < count, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(grant.calls, count)
    }

    func testAGrantNeverRunsOnTheCallersThread() throws {
        let grant = ManualGrant(), clock = Clock()
        let cache = try cache(grant, clock)
        let asked = Date()
        XCTAssertEqual(cache.current(), .pending, "no token yet: the grant runs elsewhere")
        XCTAssertEqual(cache.current(), .pending)
        XCTAssertLessThan(Date().timeIntervalSince(asked), 1, "current() did not wait for the grant")
        waitForCalls(grant, 1)
        grant.answer(.success(.init(token: "t1", lifetime: 3600)))
        settled(cache)
        XCTAssertEqual(cache.current(), .ready("t1"))
        XCTAssertEqual(grant.calls, 1, "one grant for every caller")
        XCTAssertEqual(cache.grantedCount, 1)
    }

    func testTheTokenIsReplacedAheadOfItsExpiryWhileTheOldOneIsStillHandedOut() throws {
        let grant = ManualGrant(), clock = Clock()
        let cache = try cache(grant, clock)
        _ = cache.current()
        grant.answer(.success(.init(token: "t1", lifetime: 3600)))
        settled(cache)
        clock.advance(3600 - OAuth2TokenCache.refreshMargin - 1)
        XCTAssertEqual(cache.current(), .ready("t1"))
        XCTAssertEqual(grant.calls, 1, "not due yet")
        clock.advance(1)
        // Due: the replacement's grant starts (and hangs); t1 is still valid and still handed out.
        XCTAssertEqual(cache.current(), .ready("t1"))
        waitForCalls(grant, 2)
        clock.advance(OAuth2TokenCache.refreshMargin - 1)
        XCTAssertEqual(cache.current(), .ready("t1"))
        XCTAssertEqual(grant.calls, 2, "one replacement at a time")
        clock.advance(1)
        XCTAssertEqual(cache.current(), .pending, "expired, and the replacement has not come")
        grant.answer(.success(.init(token: "t2", lifetime: 3600)))
        settled(cache)
        XCTAssertEqual(cache.current(), .ready("t2"))
    }

    func testAFailedGrantIsCountedAndTriedAgainAfterABackoff() throws {
        let grant = ManualGrant(), clock = Clock()
        let cache = try cache(grant, clock)
        _ = cache.current()
        grant.answer(.failure(.init(reason: "OAuth2 token request failed: Timeout was reached")))
        settled(cache)
        XCTAssertEqual(cache.current(), .unavailable("OAuth2 token request failed: Timeout was reached"))
        XCTAssertEqual(cache.grantFailureCount, 1)
        XCTAssertEqual(grant.calls, 1, "not again before the backoff (1 s)")
        clock.advance(1)
        XCTAssertEqual(cache.current(), .pending)
        waitForCalls(grant, 2)
        grant.answer(.failure(.init(reason: "OAuth2 token request answered 500")))
        settled(cache)
        clock.advance(1)
        XCTAssertEqual(cache.current(), .unavailable("OAuth2 token request answered 500"), "the second backoff is 2 s")
        clock.advance(1)
        XCTAssertEqual(cache.current(), .pending)
        waitForCalls(grant, 3)
        grant.answer(.success(.init(token: "t1", lifetime: 3600)))
        settled(cache)
        XCTAssertEqual(cache.current(), .ready("t1"))
        XCTAssertEqual(cache.grantFailureCount, 2)
        XCTAssertEqual((1...9).map(OAuth2TokenCache.backoff(afterFailures:)), [1, 2, 4, 8, 16, 32, 60, 60, 60])
    }

    func testA401ReplacesTheTokenOnceAndAtMostEveryTenSeconds() throws {
        let grant = ManualGrant(), clock = Clock()
        let cache = try cache(grant, clock)
        _ = cache.current()
        grant.answer(.success(.init(token: "t1", lifetime: 3600)))
        settled(cache)
        XCTAssertTrue(cache.replace(rejected: "t1"))
        XCTAssertEqual(cache.current(), .pending, "a refused token is not sent again")
        XCTAssertTrue(cache.replace(rejected: "t1"), "a second 401 for t1 waits for the same grant")
        waitForCalls(grant, 1 + 1)
        grant.answer(.success(.init(token: "t2", lifetime: 3600)))
        settled(cache)
        XCTAssertEqual(cache.current(), .ready("t2"))
        XCTAssertTrue(cache.replace(rejected: "t1"), "a late 401 for t1: retry with t2, no grant")
        XCTAssertFalse(cache.replace(rejected: "t2"), "forced grants are at most one per 10 s")
        XCTAssertEqual(cache.current(), .ready("t2"))
        XCTAssertEqual(grant.calls, 2)
        clock.advance(OAuth2TokenCache.forcedRefreshSpacing)
        XCTAssertTrue(cache.replace(rejected: "t2"))
        waitForCalls(grant, 3)
        grant.answer(.success(.init(token: "t3", lifetime: 3600)))
        settled(cache)
        XCTAssertEqual(cache.current(), .ready("t3"))
    }
}
