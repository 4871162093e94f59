import FoundationEssentials
import PushwireDelivery

/// Maps FCM HTTP v1 answers to delivery outcomes (Firebase's "FCM error codes"). An error's body
/// is `{"error":{"code":404,"message":…,"status":"NOT_FOUND","details":[{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}, …]}}`.
enum FCMResponse {
    private struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var errorCode: String?
            struct Violation: Decodable { var field: String? }
            var fieldViolations: [Violation]?
        }
        struct Error: Decodable {
            var message: String?
            var status: String?
            var details: [Detail]?
        }
        var error: Error?
    }

    /// Classifies one answer:
    /// - 200 → sent;
    /// - 404 / `UNREGISTERED` → the token is dead (the app was uninstalled or the token expired);
    /// - 400 `INVALID_ARGUMENT` about the token (a `message.token` field violation, or a message
    ///   naming the registration token), 403 `SENDER_ID_MISMATCH` → the token is invalid for this
    ///   project; another 400 is a permanent failure of the message (`INVALID_ARGUMENT`);
    /// - 401 → refresh the access token once and send again;
    /// - 429 `QUOTA_EXCEEDED`, 500, 503 `UNAVAILABLE` → retry, after `Retry-After` when given;
    /// - anything else → a permanent failure named by FCM's error code or status.
    static func verdict(status: Int, body: [UInt8], retryAfter: Duration?) -> APNsVerdict {
        if status == 200 { return .outcome(.sent(apnsID: "")) }
        let error = (try? JSONDecoder().decode(ErrorBody.self, from: Data(body)))?.error
        let code = error?.details?.compactMap(\.errorCode).first
        let reason = code ?? error?.status ?? "HTTP \(status)"
        switch status {
        case 401:
            return .refreshTokenAndRetry
        case 404:
            return .outcome(.deadToken(reason: code ?? "UNREGISTERED", since: nil))
        case _ where code == "UNREGISTERED":
            return .outcome(.deadToken(reason: "UNREGISTERED", since: nil))
        case 400:
            let fields = error?.details?.flatMap { $0.fieldViolations ?? [] }.compactMap(\.field) ?? []
            let aboutToken = fields.contains("message.token")
                || (error?.message?.lowercased().contains("registration token") ?? false)
            return .outcome(aboutToken ? .invalidToken(reason: code ?? "INVALID_ARGUMENT") : .failed(reason: reason))
        case 403 where code == "SENDER_ID_MISMATCH":
            return .outcome(.invalidToken(reason: "SENDER_ID_MISMATCH"))
        case 429, 500, 502, 503, 504:
            return .outcome(.retry(reason: reason, after: retryAfter))
        default:
            return .outcome(.failed(reason: reason))
        }
    }
}

/// FCM's requests: `POST /v1/projects/<project>/messages:send` with the OAuth2 access token and
/// the message as JSON (the gateway puts the device's token into it).
struct FCMProfile: HTTP2PushProfile {
    let projectID: String
    let tokens: OAuth2TokenCache
    /// Every request's `:path`, made once rather than interpolated per request.
    private let messagesPath: String

    init(projectID: String, tokens: OAuth2TokenCache) {
        self.projectID = projectID
        self.tokens = tokens
        messagesPath = "/v1/projects/\(projectID)/messages:send"
    }

    func appendSharedHeaders(token: String, to block: inout NGHTTP2HeaderBlock) {
        block.append("authorization", "Bearer ", token)
        block.append("content-type", "application/json")
    }
    // Every FCM request has the same path and no headers of its own.
    func appendRequestHeaders(for job: APNsJob, to block: inout NGHTTP2HeaderBlock) { block.append(":path", messagesPath) }
    func currentToken() -> BearerToken { tokens.current() }
    func whenTokenSettles(_ wake: @escaping @Sendable () -> Void) { tokens.whenSettled(wake) }
    func replace(rejected: String) -> Bool { tokens.replace(rejected: rejected) }
    func verdict(status: Int, body: [UInt8], job: APNsJob, retryAfter: Duration?) -> APNsVerdict {
        FCMResponse.verdict(status: status, body: body, retryAfter: retryAfter)
    }
    var rejectedTokenOutcome: DeliveryOutcome { .retry(reason: "UNAUTHENTICATED", after: .seconds(10)) }
}
