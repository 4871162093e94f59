import FoundationEssentials
import Glibc
import Synchronization

/// FCM's OAuth2 access token, got from a service account with the JWT bearer grant (RFC 7523):
/// a JWT signed RS256 with the account's key (`iss` its e-mail, `aud` the token URI, `scope`
/// firebase.messaging, an hour's `exp`) is posted to the token URI, which answers an access
/// token and its lifetime.
///
/// Grants never run on the caller's thread (an HTTP/2 connection's): `current()` answers at once
/// and, when a grant is due, starts one on a thread of its own (`DetachedThread`). The token is
/// replaced ahead of its expiry — from `refreshMargin` (5 minutes) before it, or halfway through a
/// short lifetime — while requests go on carrying the old one, still valid; a stalled grant (up to
/// `grantTimeoutMS`) thus delays nobody while the token it replaces lives. Only when there is no
/// valid token do requests wait (`.pending`), and the connection's thread waits for nothing: it is
/// called back (`whenSettled`) once the grant has succeeded or failed.
///
/// A failed grant is reported (`grantFailureCount`, and its reason in `.unavailable` while no valid
/// token is left, which the gateway answers as a retry) and tried again after a backoff: 1 s, 2 s,
/// 4 s … at most `maxBackoffSeconds`, restarted by a success.
///
/// A 401 for the token in use makes it unusable at once and starts a grant — concurrent 401s for
/// one token cause one grant — but grants forced that way are at most one per
/// `forcedRefreshSpacing` (10 s), so a misbehaving server cannot make the gateway ask for a token
/// per request.
final class OAuth2TokenCache: Sendable {
    /// The scope FCM's send API needs.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long before its expiry a token is replaced, in seconds.
    static let refreshMargin: Int64 = 300
    /// The least time between two grants forced by a 401, in seconds.
    static let forcedRefreshSpacing: Int64 = 10
    /// How long a grant may take.
    static let grantTimeoutMS = 10_000
    /// The longest wait before a failed grant is tried again, in seconds.
    static let maxBackoffSeconds: Int64 = 60

    /// A granted token and how long it lives, in seconds.
    struct Granted: Sendable, Equatable {
        var token: String
        var lifetime: Int64
    }

    /// Posts one signed assertion to the token endpoint (blocking, on the grant thread).
    typealias Grant = @Sendable (_ assertion: String) -> Result<Granted, GrantFailure>

    /// Why a grant gave no token.
    struct GrantFailure: Error, Sendable, Equatable {
        var reason: String
    }

    private struct State {
        var token: String?
        var expiresAt: Int64 = 0
        /// When the token is replaced: `refreshMargin` before it expires, or halfway through a
        /// short lifetime.
        var refreshAt: Int64 = 0
        /// The token was refused (401): not sent again.
        var rejected = false
        var lastForcedRefresh: Int64?
        var granting = false
        var consecutiveFailures = 0
        /// No grant starts before this time (the backoff after a failure).
        var nextAttemptAt: Int64 = 0
        var lastFailure = ""
        var granted = 0
        var failedGrants = 0
        var waiters: [@Sendable () -> Void] = []

        func usableToken(at time: Int64) -> String? {
            guard let token, !rejected, time < expiresAt else { return nil }
            return token
        }
    }

    private let account: FCMServiceAccount
    private let signer: JWTSigner
    private let grant: Grant
    private let now: @Sendable () -> Int64
    private let state = Mutex(State())

    /// Creates a cache for `account`, granting through its token URI with libcurl; `caFile` is
    /// trusted for the token URI instead of the system's store.
    convenience init(account: FCMServiceAccount, caFile: String?,
                     now: @escaping @Sendable () -> Int64 = ProviderTokenCache.systemNow) throws(FCMCredentialError) {
        let tokenURI = account.tokenURI
        try self.init(account: account, now: now) { assertion in Self.post(assertion: assertion, to: tokenURI, caFile: caFile) }
    }

    /// Creates a cache for `account` that grants with `grant` (tests inject their own).
    init(account: FCMServiceAccount, now: @escaping @Sendable () -> Int64, grant: @escaping Grant) throws(FCMCredentialError) {
        self.account = account
        do {
            signer = try JWTSigner(pem: account.privateKeyPEM, algorithm: .rs256)
        } catch {
            throw .invalid(error.reason(for: .rs256))
        }
        self.grant = grant
        self.now = now
    }

    /// Access tokens granted so far.
    var grantedCount: Int { state.withLock { $0.granted } }

    /// Grants that failed so far.
    var grantFailureCount: Int { state.withLock { $0.failedGrants } }

    /// The token to send now: `.ready` while one is valid (starting its replacement in the
    /// background once it is due), `.pending` while a grant runs and no valid token is left,
    /// `.unavailable` with the last grant's failure while the backoff runs. Never blocks.
    func current() -> BearerToken {
        let (answer, start) = state.withLock { state -> (BearerToken, Bool) in
            let time = now()
            let usable = state.usableToken(at: time)
            var start = false
            if usable == nil || time >= state.refreshAt, !state.granting, time >= state.nextAttemptAt {
                state.granting = true
                start = true
            }
            if let usable { return (.ready(usable), start) }
            return (state.granting ? .pending : .unavailable(state.lastFailure), start)
        }
        if start { startGrant() }
        return answer
    }

    /// Calls `wake` once the running grant has succeeded or failed; at once when none runs.
    func whenSettled(_ wake: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.granting else { return true }
            state.waiters.append(wake)
            return false
        }
        if now { wake() }
    }

    /// Handles a 401 answered to a request that carried `rejected`: false when no other token is
    /// to be had for now (a grant was forced less than `forcedRefreshSpacing` ago), else true —
    /// the request is sent again with the next `current()` token, which may still be `.pending`.
    func replace(rejected: String) -> Bool {
        let (retry, start) = state.withLock { state -> (Bool, Bool) in
            let time = now()
            guard state.token == rejected, !state.rejected else { return (true, false) }
            if let last = state.lastForcedRefresh, time - last < Self.forcedRefreshSpacing { return (false, false) }
            state.lastForcedRefresh = time
            state.rejected = true
            // A forced grant does not wait out a backoff: the server has just said the old token is useless.
            state.nextAttemptAt = 0
            guard !state.granting else { return (true, false) }
            state.granting = true
            return (true, true)
        }
        if start { startGrant() }
        return retry
    }

    /// The signed JWT of a grant made at `time`.
    func assertion(at time: Int64) -> String? {
        var header = #"{"alg":"RS256","typ":"JWT""#
        if !account.privateKeyID.isEmpty { header += #","kid":"\#(account.privateKeyID)""# }
        header += "}"
        let claims = #"{"iss":"\#(account.clientEmail)","scope":"\#(Self.scope)","aud":"\#(account.tokenURI)","iat":\#(time),"exp":\#(time + 3600)}"#
        return signer.compact(header: header, claims: claims)
    }

    /// The wait before the next attempt after `failures` failed grants in a row.
    static func backoff(afterFailures failures: Int) -> Int64 {
        min(maxBackoffSeconds, Int64(1) << Int64(min(max(failures - 1, 0), 6)))
    }

    private func startGrant() {
        if !DetachedThread.start({ [self] in runGrant() }) {
            settle(.failure(GrantFailure(reason: "could not start a thread for the grant")), at: now())
        }
    }

    /// One grant, on its own thread.
    private func runGrant() {
        let time = now()
        let result: Result<Granted, GrantFailure>
        if let jwt = assertion(at: time) {
            result = grant(jwt)
        } else {
            result = .failure(GrantFailure(reason: "could not sign the OAuth2 assertion"))
        }
        settle(result, at: time)
    }

    private func settle(_ result: Result<Granted, GrantFailure>, at time: Int64) {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.granting = false
            switch result {
            case .success(let granted):
                let lifetime = max(2, granted.lifetime)
                state.token = granted.token
                state.rejected = false
                state.expiresAt = time + lifetime
                state.refreshAt = time + lifetime - min(Self.refreshMargin, lifetime / 2)
                state.granted += 1
                state.consecutiveFailures = 0
                state.nextAttemptAt = 0
                state.lastFailure = ""
            case .failure(let failure):
                state.failedGrants += 1
                state.consecutiveFailures += 1
                state.nextAttemptAt = now() + Self.backoff(afterFailures: state.consecutiveFailures)
                state.lastFailure = failure.reason
            }
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        for wake in waiters { wake() }
    }

    private struct GrantAnswer: Decodable {
        var access_token: String?
        var expires_in: Int64?
        var error: String?
        var error_description: String?
    }

    /// The grant over HTTPS: the form post of RFC 7523 and the token endpoint's JSON answer.
    static func post(assertion: String, to tokenURI: String, caFile: String?) -> Result<Granted, GrantFailure> {
        // Base64url is form-safe as it is; only the grant type's colons need escaping.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        switch HTTPSPost.post(url: tokenURI, contentType: "application/x-www-form-urlencoded", body: Array(form.utf8),
                              caFile: caFile, timeoutMS: grantTimeoutMS) {
        case .failure(let failure):
            return .failure(GrantFailure(reason: "OAuth2 token request failed: \(failure.reason)"))
        case .success(let response):
            let answer = try? JSONDecoder().decode(GrantAnswer.self, from: Data(response.body))
            guard response.status == 200, let token = answer?.access_token, !token.isEmpty,
                  token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                let why = answer?.error.map { ": \($0)" } ?? ""
                return .failure(GrantFailure(reason: "OAuth2 token request answered \(response.status)\(why)"))
            }
            return .success(Granted(token: token, lifetime: answer?.expires_in ?? 3600))
        }
    }
}

/// What a push service's token source answers when a request is about to go out.
enum BearerToken: Sendable, Equatable {
    /// Send with this token.
    case ready(String)
    /// A grant is running and no valid token is left: wait for it (`whenSettled`).
    case pending
    /// No token can be had for now; the reason is reported with the request's retry.
    case unavailable(String)
}
