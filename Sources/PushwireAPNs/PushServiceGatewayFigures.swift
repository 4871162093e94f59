import PushwireDelivery

/// What a push service's gateway (`APNsGateway`, `FCMGateway`) reports for /metrics.
public protocol PushServiceGatewayFigures: NotificationGateway {
    /// Tokens made so far: APNs provider tokens signed, FCM access tokens granted.
    var tokensMade: Int { get }
    /// Tokens that could not be had: FCM access-token grants that failed (each tried again after
    /// a backoff); APNs signs locally and reports 0.
    var tokenFailures: Int { get }
    /// Requests sent again because their connection failed before the service could act on them.
    var connectionRetryCount: Int { get }
    /// Requests sent whole that got no answer, given back as `.retry`: the service may have
    /// delivered them.
    var unansweredAfterSendingCount: Int { get }
}

extension APNsGateway: PushServiceGatewayFigures {
    /// `providerTokensSigned`.
    public var tokensMade: Int { providerTokensSigned }
    /// Always 0: provider tokens are signed here, never fetched.
    public var tokenFailures: Int { 0 }
}

extension FCMGateway: PushServiceGatewayFigures {
    /// `accessTokensGranted`.
    public var tokensMade: Int { accessTokensGranted }
    /// `accessTokenGrantFailures`.
    public var tokenFailures: Int { accessTokenGrantFailures }
}
