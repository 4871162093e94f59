import PushwireDelivery

/// One notification on its way through the HTTP/2 thread, with what its retries need to know.
struct APNsJob: Sendable {
    /// What to send.
    var notification: OutgoingNotification
    /// The `apns-id` header: the same on every attempt, so APNs' logs and ours agree.
    var apnsID: String
    /// Attempts that failed without an answer from APNs (connection refused, reset, GOAWAY).
    var failedAttempts = 0
    /// Whether this notification already caused a provider-token refresh (403 ExpiredProviderToken).
    var refreshedToken = false
    /// Called once, on the HTTP/2 thread, with the final outcome.
    var completion: @Sendable (DeliveryOutcome) -> Void
}
