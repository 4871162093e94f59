import FoundationEssentials
import PushwireDelivery

/// What to do with one APNs answer.
enum APNsVerdict: Equatable {
    /// Report this outcome to the pipeline.
    case outcome(DeliveryOutcome)
    /// 403 `ExpiredProviderToken`: sign a new JWT and send again.
    case refreshTokenAndRetry
}

/// Maps APNs' HTTP answers to delivery outcomes (Apple's "Handling notification responses").
enum APNsResponse {
    /// The JSON body APNs sends with every non-200 answer.
    private struct ErrorBody: Decodable {
        var reason: String?
        var timestamp: Int64?
    }

    /// Classifies one answer.
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - body: the response body (JSON with `reason`, and `timestamp` for 410).
    ///   - apnsID: the `apns-id` the request carried; APNs echoes it.
    ///   - retryAfter: the `retry-after` header, when present.
    static func verdict(status: Int, body: [UInt8], apnsID: String, retryAfter: Duration?) -> APNsVerdict {
        if status == 200 { return .outcome(.sent(apnsID: apnsID)) }
        let parsed = try? JSONDecoder().decode(ErrorBody.self, from: Data(body))
        let reason = parsed?.reason ?? "HTTP \(status)"
        switch status {
        case 410:
            return .outcome(.deadToken(reason: reason, since: parsed?.timestamp))
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic":
            return .outcome(.invalidToken(reason: reason))
        case 403 where reason == "ExpiredProviderToken":
            return .refreshTokenAndRetry
        case 429, 500, 502, 503, 504:
            return .outcome(.retry(reason: reason, after: retryAfter))
        default:
            // 413 PayloadTooLarge, 400 BadCollapseId, 403 InvalidProviderToken, …: permanent.
            return .outcome(.failed(reason: reason))
        }
    }

    /// Parses a `retry-after` value given in seconds (APNs does not use the HTTP-date form).
    static func retryAfter(_ value: Substring) -> Duration? {
        // Work on bytes: "\r\n" is one Character, so character filters would miss it.
        let digits = value.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let seconds = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return .seconds(min(seconds, 24 * 3600))
    }
}
