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
    /// The batch the notification came in: its outcome goes there, once, and gives its in-flight
    /// slot back. A reference and an index rather than a closure per job: no allocation per
    /// notification, and a connection's thread hands a whole round's answers to a batch at once
    /// (`SettledJobs`).
    let batch: BatchCollector
    /// The notification's place in `batch`.
    let index: Int

    init(notification: OutgoingNotification, apnsID: String, batch: BatchCollector, index: Int) {
        self.notification = notification
        self.apnsID = apnsID
        self.batch = batch
        self.index = index
    }

    /// Reports the final outcome on its own; a connection's thread gathers them in `SettledJobs`
    /// instead.
    func complete(_ outcome: DeliveryOutcome) {
        batch.complete(CollectionOfOne(SettledJobs.Entry(batch: batch, index: index, outcome: outcome)))
    }
}
