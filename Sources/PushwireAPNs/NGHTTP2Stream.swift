/// One request on an nghttp2 connection: the job, its body, and what the answer has brought.
///
/// Lives on its client's thread only, in its connection's stream table.
final class NGHTTP2Stream {
    /// The response body is only APNs' small JSON error; anything larger is cut here.
    static let maxBodyBytes = 16 * 1024

    let job: APNsJob
    /// The provider token this attempt carried, to tell whether a 403 concerns the current one.
    let token: String
    /// When the request is given up on (reset and sent again).
    let deadline: ContinuousClock.Instant
    /// How much of `job.notification.payload` the data provider has handed nghttp2.
    var bodySent = 0
    /// The `:status` of the answer; 0 until the response HEADERS arrive.
    var status = 0
    var body: [UInt8] = []
    var retryAfter: Duration?
    /// Set when the stream was reset for passing its deadline.
    var timedOut = false

    init(job: APNsJob, token: String, deadline: ContinuousClock.Instant) {
        self.job = job
        self.token = token
        self.deadline = deadline
    }
}
