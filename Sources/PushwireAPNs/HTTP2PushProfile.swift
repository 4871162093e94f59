import PushwireDelivery

/// What one push service's requests look like on the nghttp2 transport (`NGHTTP2Client`): the
/// path and headers of a notification's request, the bearer token it carries, and what an answer
/// means. APNs (`APNsProfile`) and FCM (`FCMProfile`) share the transport — connections, streams,
/// retries of unanswered requests — and differ only here.
protocol HTTP2PushProfile: Sendable {
    /// Appends the headers every request carrying `token` has alike to `block` (once per token
    /// and connection).
    func appendSharedHeaders(token: String, to block: inout NGHTTP2HeaderBlock)
    /// Appends the request's `:path` and the headers of this request alone to `block` (once per
    /// request: written straight into the block, no array or string per request).
    func appendRequestHeaders(for job: APNsJob, to block: inout NGHTTP2HeaderBlock)
    /// The token to send now, without blocking: `.pending` while one is being fetched (the
    /// connection's thread goes on and is woken through `whenTokenSettles`), `.unavailable` with
    /// the reason when none can be had (signing or the token endpoint failed), reported as a
    /// transient failure.
    func currentToken() -> BearerToken
    /// Calls `wake` (on any thread) once a pending token has been fetched or has failed.
    func whenTokenSettles(_ wake: @escaping @Sendable () -> Void)
    /// Replaces `rejected` after the service refused it (APNs 403 `ExpiredProviderToken`, FCM
    /// 401); false when no new token can be had, else the request goes again with the next
    /// `currentToken()`.
    func replace(rejected: String) -> Bool
    /// What an answer means.
    func verdict(status: Int, body: [UInt8], job: APNsJob, retryAfter: Duration?) -> APNsVerdict
    /// The outcome of a request whose token was refused again after a refresh.
    var rejectedTokenOutcome: DeliveryOutcome { get }
}

/// APNs' requests: `POST /3/device/<token>` with `apns-*` headers and the provider token (ES256 JWT).
struct APNsProfile: HTTP2PushProfile {
    let topic: String
    let tokens: ProviderTokenCache

    func appendSharedHeaders(token: String, to block: inout NGHTTP2HeaderBlock) {
        APNsRequest.appendSharedHeaders(topic: topic, token: token, to: &block)
    }
    func appendRequestHeaders(for job: APNsJob, to block: inout NGHTTP2HeaderBlock) {
        block.append(":path", APNsRequest.pathPrefix, job.notification.deviceToken)
        APNsRequest.appendOwnHeaders(for: job, to: &block)
    }
    // ES256 signing takes well under a millisecond: done on the connection's thread, never pending.
    func currentToken() -> BearerToken { tokens.current().map(BearerToken.ready) ?? .unavailable("could not sign the provider token") }
    func whenTokenSettles(_ wake: @escaping @Sendable () -> Void) { wake() }
    func replace(rejected: String) -> Bool { tokens.replace(expired: rejected) != nil }
    func verdict(status: Int, body: [UInt8], job: APNsJob, retryAfter: Duration?) -> APNsVerdict {
        APNsResponse.verdict(status: status, body: body, apnsID: job.apnsID, retryAfter: retryAfter)
    }
    var rejectedTokenOutcome: DeliveryOutcome { .retry(reason: "ExpiredProviderToken", after: .seconds(60)) }
}
