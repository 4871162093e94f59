import PushwireWire

/// A Pushwoosh-style error: `{"status_code": 210, "status_message": "…"}`. Argument errors are
/// status 210 in an HTTP 200, as Pushwoosh answers them; the others carry their HTTP status.
struct PushwooshFailure: Error, Sendable {
    var statusCode: Int
    var message: String

    /// An argument error (210).
    static func argument(_ message: String) -> PushwooshFailure {
        PushwooshFailure(statusCode: 210, message: message)
    }

    /// The HTTP status the failure is sent with.
    var httpStatus: Int { statusCode == 210 ? 200 : statusCode }

    /// How a Pushwire call's error reads in Pushwoosh's terms.
    init(_ error: RPCError) {
        switch error.code {
        case .invalidArgument, .notFound, .failedPrecondition, .outOfRange, .alreadyExists:
            self.init(statusCode: 210, message: error.message)
        case .unauthenticated, .permissionDenied:
            self.init(statusCode: 401, message: error.message)
        case .resourceExhausted:
            self.init(statusCode: 429, message: error.message)
        case .deadlineExceeded, .unavailable:
            self.init(statusCode: 503, message: error.message)
        default:
            self.init(statusCode: 500, message: error.message)
        }
    }

    init(statusCode: Int, message: String) {
        self.statusCode = statusCode
        self.message = message
    }
}
