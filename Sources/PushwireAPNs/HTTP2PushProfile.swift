import PushwireDelivery

/// What one push service's requests look like on the nghttp2 transport (`NGHTTP2Client`): the
/// path and headers of a notification's request, the bearer token it carries, and what an answer
/// means. APNs (`APNsProfile`) and FCM (`FCMProfile`) share the transport — connections, streams,
/// retries of unanswered requests — and differ only here.
protocol HTTP2PushProfile: Sendable {
    /// The request's `:path`.
    func path(for notification: OutgoingNotification) -> String
    /// The headers every request carrying `token` has alike, laid out once per token.
    func sharedHeaders(token: String) -> [(name: String, value: String)]
    /// The headers of this request alone.
    func ownHeaders(for job: APNsJob) -> [(name: String, value: String)]
    /// The token to send now; nil when none can be had (signing or the token endpoint failed),
    /// with the reason, reported as a transient failure.
    func currentToken() -> (token: String?, failure: String)
    /// Replaces `rejected` after the service refused it (APNs 403 `ExpiredProviderToken`, FCM
    /// 401); nil when no new token can be had.
    func replace(rejected: String) -> String?
    /// What an answer means.
    func verdict(status: Int, body: [UInt8], job: APNsJob, retryAfter: Duration?) -> APNsVerdict
    /// The outcome of a request whose token was refused again after a refresh.
    var rejectedTokenOutcome: DeliveryOutcome { get }
}

/// APNs' requests: `POST /3/device/<token>` with `apns-*` headers and the provider token (ES256 JWT).
struct APNsProfile: HTTP2PushProfile {
    let topic: String
    let tokens: ProviderTokenCache

    func path(for notification: OutgoingNotification) -> String { APNsRequest.path(for: notification) }
    func sharedHeaders(token: String) -> [(name: String, value: String)] { APNsRequest.sharedHeaders(topic: topic, token: token) }
    func ownHeaders(for job: APNsJob) -> [(name: String, value: String)] { APNsRequest.ownHeaders(for: job) }
    func currentToken() -> (token: String?, failure: String) { (tokens.current(), "could not sign the provider token") }
    func replace(rejected: String) -> String? { tokens.replace(expired: rejected) }
    func verdict(status: Int, body: [UInt8], job: APNsJob, retryAfter: Duration?) -> APNsVerdict {
        APNsResponse.verdict(status: status, body: body, apnsID: job.apnsID, retryAfter: retryAfter)
    }
    var rejectedTokenOutcome: DeliveryOutcome { .retry(reason: "ExpiredProviderToken", after: .seconds(60)) }
}
