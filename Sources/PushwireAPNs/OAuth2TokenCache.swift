import FoundationEssentials
import Glibc
import Synchronization

/// FCM's OAuth2 access token, got from a service account with the JWT bearer grant (RFC 7523):
/// a JWT signed RS256 with the account's key (`iss` its e-mail, `aud` the token URI, `scope`
/// firebase.messaging, an hour's `exp`) is posted to the token URI, which answers an access
/// token and its lifetime.
///
/// The token is kept until `refreshMargin` (5 minutes) before it expires, then replaced on the
/// next request. A 401 for the token in use replaces it at once — concurrent 401s for one token
/// cause one grant — but grants forced that way are at most one per `forcedRefreshSpacing`
/// (10 s), so a misbehaving server cannot make the gateway ask for a token per request.
///
/// Grants are made on the calling thread (an HTTP/2 connection's) and block it; one at a time:
/// the others wait for it and use its token.
final class OAuth2TokenCache: Sendable {
    /// The scope FCM's send API needs.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long before its expiry a token is replaced, in seconds.
    static let refreshMargin: Int64 = 300
    /// The least time between two grants forced by a 401, in seconds.
    static let forcedRefreshSpacing: Int64 = 10
    /// How long a grant may take.
    static let grantTimeoutMS = 10_000

    private struct State {
        var token: String?
        /// When the token is replaced: `refreshMargin` before it expires, or halfway through a
        /// short lifetime.
        var refreshAt: Int64 = 0
        var lastForcedRefresh: Int64?
        var granted = 0
        var lastFailure = ""
    }

    private let account: FCMServiceAccount
    private let signer: RS256Signer
    private let caFile: String?
    private let now: @Sendable () -> Int64
    private let state = Mutex(State())

    /// Creates a cache for `account`; `caFile` is trusted for the token URI instead of the system's store.
    init(account: FCMServiceAccount, caFile: String?, now: @escaping @Sendable () -> Int64 = ProviderTokenCache.systemNow) throws(FCMCredentialError) {
        self.account = account
        signer = try RS256Signer(pem: account.privateKeyPEM)
        self.caFile = caFile
        self.now = now
    }

    /// Access tokens granted so far.
    var grantedCount: Int { state.withLock { $0.granted } }

    /// The token to send now, granting one when there is none or it is about to expire; nil and
    /// the reason when the grant failed.
    func current() -> (token: String?, failure: String) {
        state.withLock { state in
            let time = now()
            if let token = state.token, time < state.refreshAt { return (token, "") }
            let token = grant(into: &state, at: time)
            return (token, state.lastFailure)
        }
    }

    /// Handles a 401 answered to `rejected`; returns the token to retry with, nil when none.
    func replace(rejected: String) -> String? {
        state.withLock { state in
            let time = now()
            guard state.token == rejected else { return state.token ?? grant(into: &state, at: time) }
            if let last = state.lastForcedRefresh, time - last < Self.forcedRefreshSpacing { return nil }
            state.lastForcedRefresh = time
            return grant(into: &state, at: time)
        }
    }

    /// The signed JWT of a grant made at `time`.
    func assertion(at time: Int64) -> String? {
        var header = #"{"alg":"RS256","typ":"JWT""#
        if !account.privateKeyID.isEmpty { header += #","kid":"\#(account.privateKeyID)""# }
        header += "}"
        let claims = #"{"iss":"\#(account.clientEmail)","scope":"\#(Self.scope)","aud":"\#(account.tokenURI)","iat":\#(time),"exp":\#(time + 3600)}"#
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        guard let signature = signer.sign(Array(signingInput.utf8)) else { return nil }
        return signingInput + "." + Base64URL.encode(signature)
    }

    private struct GrantAnswer: Decodable {
        var access_token: String?
        var expires_in: Int64?
        var error: String?
        var error_description: String?
    }

    private func grant(into state: inout State, at time: Int64) -> String? {
        guard let jwt = assertion(at: time) else {
            state.lastFailure = "could not sign the OAuth2 assertion"
            return nil
        }
        // Base64url is form-safe as it is; only the grant type's colons need escaping.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + jwt
        switch HTTPSPost.post(url: account.tokenURI, contentType: "application/x-www-form-urlencoded", body: Array(form.utf8),
                              caFile: caFile, timeoutMS: Self.grantTimeoutMS) {
        case .failure(let failure):
            state.lastFailure = "OAuth2 token request failed: \(failure.reason)"
            return nil
        case .success(let response):
            let answer = try? JSONDecoder().decode(GrantAnswer.self, from: Data(response.body))
            guard response.status == 200, let token = answer?.access_token, !token.isEmpty,
                  token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                let why = answer?.error.map { ": \($0)" } ?? ""
                state.lastFailure = "OAuth2 token request answered \(response.status)\(why)"
                return nil
            }
            state.token = token
            let lifetime = max(2, answer?.expires_in ?? 3600)
            state.refreshAt = time + lifetime - min(Self.refreshMargin, lifetime / 2)
            state.granted += 1
            state.lastFailure = ""
            return token
        }
    }
}
