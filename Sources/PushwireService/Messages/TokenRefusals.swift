import PushwireStore

extension FanOut {
    /// The result of a push service refusing `token` (a `.deadToken` or `.invalidToken` outcome):
    /// failed for good, counted among invalid tokens, and the device marked with the refusal so
    /// that it is not targeted until it registers another token. `since` is APNs' `timestamp`
    /// of a 410; without one (FCM's UNREGISTERED, an invalid token) the refusal is dated by the
    /// time of the answer.
    static func refused(_ state: RefusedToken.State, reason: String, since: Int64?, token: String) -> DeliveryResultRecord.Result {
        .failed(reason: reason, invalidToken: true,
                refusedToken: RefusedToken(token: token, state: state, sinceMS: since ?? DeliveryPipeline.nowMS()))
    }
}
