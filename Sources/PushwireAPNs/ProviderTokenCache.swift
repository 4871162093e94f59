import Glibc

import Synchronization

/// The APNs provider token (an ES256 JWT), signed once and reused until it is old enough.
///
/// Refresh rules:
/// - A token is replaced once it is `refreshSeconds` old (20–50 minutes, default 40).
/// - It is never replaced sooner than `minimumRefreshSeconds` (20 minutes) after it was made:
///   APNs answers 429 `TooManyProviderTokenUpdates` otherwise.
/// - Exception: a 403 `ExpiredProviderToken` for the token currently in use replaces it at once,
///   floor or not — APNs has declared it unusable, so keeping it avoids nothing. Concurrent 403s for
///   the same token cause one refresh (later ones find a newer token and just retry with it), and
///   forced refreshes are at most one per `forcedRefreshSpacingSeconds`, so a skewed clock cannot
///   make the gateway sign a token per request.
final class ProviderTokenCache: Sendable {
    /// APNs' floor between token refreshes, in seconds.
    static let minimumRefreshSeconds: Int64 = 20 * 60
    /// The least time between two refreshes forced by `ExpiredProviderToken`, in seconds.
    static let forcedRefreshSpacingSeconds: Int64 = 60

    private struct State {
        var token: String?
        var issuedAt: Int64 = 0
        var lastForcedRefresh: Int64?
        var signedCount = 0
    }

    private let signer: JWTSigner
    private let teamID: String
    private let keyID: String
    private let refreshSeconds: Int64
    private let now: @Sendable () -> Int64
    private let state = Mutex(State())

    /// Creates a cache; `now` returns seconds since 1970 (injectable for tests).
    init(credentials: APNsCredentials, refreshSeconds: Int64, now: @escaping @Sendable () -> Int64 = ProviderTokenCache.systemNow) throws(APNsCredentialError) {
        do {
            signer = try JWTSigner(pem: credentials.p8PEM, algorithm: .es256)
        } catch {
            throw .invalidKey(error.reason(for: .es256))
        }
        teamID = credentials.teamID
        keyID = credentials.keyID
        self.refreshSeconds = max(refreshSeconds, Self.minimumRefreshSeconds)
        self.now = now
    }

    /// The wall clock in seconds since 1970.
    static let systemNow: @Sendable () -> Int64 = {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }

    /// How many tokens have been signed so far (for tests and metrics).
    var signedCount: Int { state.withLock { $0.signedCount } }

    /// The token to send now, signing a new one when there is none or it has reached the refresh age.
    /// Returns nil only if libcrypto fails to sign.
    func current() -> String? {
        state.withLock { state in
            let time = now()
            if let token = state.token, time - state.issuedAt < refreshSeconds { return token }
            return sign(into: &state, at: time)
        }
    }

    /// Handles a 403 `ExpiredProviderToken` answered to `rejected`; returns the token to retry with.
    func replace(expired rejected: String) -> String? {
        state.withLock { state in
            let time = now()
            guard state.token == rejected else { return state.token ?? sign(into: &state, at: time) }
            if let last = state.lastForcedRefresh, time - last < Self.forcedRefreshSpacingSeconds { return state.token }
            state.lastForcedRefresh = time
            return sign(into: &state, at: time)
        }
    }

    private func sign(into state: inout State, at time: Int64) -> String? {
        guard let token = signer.compact(header: #"{"alg":"ES256","kid":"\#(keyID)"}"#, claims: #"{"iss":"\#(teamID)","iat":\#(time)}"#) else {
            return nil
        }
        state.token = token
        state.issuedAt = time
        state.signedCount += 1
        return token
    }
}
