import PushwireDelivery

/// The HTTP/2 request APNs expects for one notification: the one place that says which path and
/// headers a push carries, whichever transport sends it.
enum APNsRequest {
    /// What a request's path starts with; the device token follows.
    static let pathPrefix = "/3/device/"

    /// `/3/device/<token>`; the gateway has already checked the token is hex.
    static func path(for notification: OutgoingNotification) -> String { pathPrefix + notification.deviceToken }

    /// The non-pseudo headers, lower-case names, in sending order: `sharedHeaders`, then
    /// `ownHeaders`.
    static func headers(for job: APNsJob, topic: String, token: String) -> [(name: String, value: String)] {
        sharedHeaders(topic: topic, token: token) + ownHeaders(for: job)
    }

    /// The headers every request signed with `token` carries alike, as strings (libcurl's header
    /// lines): the ones `appendSharedHeaders` lays out.
    static func sharedHeaders(topic: String, token: String) -> [(name: String, value: String)] {
        var block = NGHTTP2HeaderBlock()
        appendSharedHeaders(topic: topic, token: token, to: &block)
        return block.fields
    }

    /// Appends the headers every request signed with `token` carries alike to `block` (a
    /// connection lays them out once per provider token).
    static func appendSharedHeaders(topic: String, token: String, to block: inout NGHTTP2HeaderBlock) {
        block.append("authorization", "bearer ", token)
        block.append("apns-topic", topic)
        block.append("content-type", "application/json")
    }

    /// The headers that differ from one notification to the next, as strings (libcurl's header
    /// lines): the ones `appendOwnHeaders` lays out.
    static func ownHeaders(for job: APNsJob) -> [(name: String, value: String)] {
        var block = NGHTTP2HeaderBlock()
        appendOwnHeaders(for: job, to: &block)
        return block.fields
    }

    /// Appends the headers that differ from one notification to the next to `block`: the one
    /// place that says what they are. The `apns-id` stays out of HPACK's dynamic table (it is new
    /// on every request).
    static func appendOwnHeaders(for job: APNsJob, to block: inout NGHTTP2HeaderBlock) {
        block.append("apns-push-type", job.notification.pushType)
        block.append("apns-priority", decimal: Int64(job.notification.priority))
        block.append("apns-expiration", decimal: job.notification.expiration)
        block.append("apns-id", job.apnsID, indexed: false)
        if !job.notification.collapseID.isEmpty { block.append("apns-collapse-id", job.notification.collapseID) }
    }
}
