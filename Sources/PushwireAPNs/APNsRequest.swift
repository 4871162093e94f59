import PushwireDelivery

/// The HTTP/2 request APNs expects for one notification: the one place that says which path and
/// headers a push carries, whichever transport sends it.
enum APNsRequest {
    /// `/3/device/<token>`; the gateway has already checked the token is hex.
    static func path(for notification: OutgoingNotification) -> String { "/3/device/\(notification.deviceToken)" }

    /// The non-pseudo headers, lower-case names, in sending order: `sharedHeaders`, then
    /// `ownHeaders`.
    static func headers(for job: APNsJob, topic: String, token: String) -> [(name: String, value: String)] {
        sharedHeaders(topic: topic, token: token) + ownHeaders(for: job)
    }

    /// The headers every request signed with `token` carries alike (a transport may encode them
    /// once per provider token).
    static func sharedHeaders(topic: String, token: String) -> [(name: String, value: String)] {
        [
            ("authorization", "bearer \(token)"),
            ("apns-topic", topic),
            ("content-type", "application/json"),
        ]
    }

    /// The headers that differ from one notification to the next.
    static func ownHeaders(for job: APNsJob) -> [(name: String, value: String)] {
        let notification = job.notification
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", notification.pushType),
            ("apns-priority", String(notification.priority)),
            ("apns-expiration", String(notification.expiration)),
            ("apns-id", job.apnsID),
        ]
        if !notification.collapseID.isEmpty { headers.append(("apns-collapse-id", notification.collapseID)) }
        return headers
    }
}
