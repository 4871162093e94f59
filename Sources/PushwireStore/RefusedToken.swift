/// A push token that a push service refused, as the device keeps it until it registers another
/// token (the device is not targeted meanwhile).
public struct RefusedToken: Sendable, Equatable {
    /// How the push service refused it.
    public enum State: Int64, Sendable {
        /// No longer valid (APNs 410 `Unregistered`/`ExpiredToken`, FCM `UNREGISTERED` or 404):
        /// the app was removed or the token replaced.
        case dead = 1
        /// Never valid for this app (APNs 400 `BadDeviceToken`/`DeviceTokenNotForTopic`, FCM
        /// `INVALID_ARGUMENT` on the token or `SENDER_ID_MISMATCH`).
        case invalid = 2
    }

    /// The token sent; the device is marked only while this is still its push token.
    public var token: String
    public var state: State
    /// Since when (ms since 1970): APNs' `timestamp` for a 410 that carries one, otherwise the
    /// time of the answer; 0 when unknown (tokens refused before the store kept the time).
    public var sinceMS: Int64

    /// Creates a refusal.
    public init(token: String, state: State, sinceMS: Int64) {
        self.token = token
        self.state = state
        self.sinceMS = sinceMS
    }
}
