/// How many of a fan-out step's outcomes were sent, failed, and failed on a refused token: what
/// both engines add to the message's counters and what the delivery summary line reports.
public struct FanOutOutcomeCounts: Sendable, Equatable {
    public var sent: Int64 = 0
    public var failed: Int64 = 0
    /// The failures whose token was refused (counted in `failed` too).
    public var invalidTokens: Int64 = 0

    /// Counts `results`; a retry pending is none of the three.
    public init(_ results: [DeliveryResultRecord]) {
        // By index: a copy of each record retained and released its hwid.
        for index in results.indices {
            switch results[index].result {
            case .sent: sent += 1
            case .failed(_, let invalidToken, _):
                failed += 1
                if invalidToken { invalidTokens += 1 }
            case .retryPending: break
            }
        }
    }
}
