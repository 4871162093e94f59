import PushwireDelivery

/// One notification on its way through the HTTP/2 thread, with what its retries need to know.
struct APNsJob: Sendable {
    /// What to send.
    var notification: OutgoingNotification
    /// The `apns-id` header: the same on every attempt, so APNs' logs and ours agree.
    var apnsID: String
    /// Attempts that failed without an answer, and that the service cannot have acted on (the
    /// connection refused, the stream refused, not all of the request sent).
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

    /// The outcome of a request that went out whole and got no answer (the connection lost, the
    /// stream reset or past its deadline): the service may have delivered it, so it is not sent
    /// again in this delivery attempt; the pipeline's retry makes a new attempt record for it
    /// (docs/DELIVERY.md, "At most once per attempt record").
    static func perhapsDelivered(reason: String) -> DeliveryOutcome {
        .retry(reason: "no answer after the request was sent (\(reason))", after: nil)
    }

    /// Reports the final outcome on its own; a connection's thread gathers them in `SettledJobs`
    /// instead.
    func complete(_ outcome: DeliveryOutcome) {
        batch.complete(CollectionOfOne(SettledJobs.Entry(batch: batch, index: index, outcome: outcome)))
    }
}
