/// Exponential backoff with jitter, capped: how long to wait before reconnect attempt `n`.
public struct Backoff: Sendable {
    /// The delay before the first retry.
    public var initial: Duration
    /// The largest delay.
    public var maximum: Duration
    /// The growth factor per attempt.
    public var multiplier: Double
    /// The fraction of each delay that is random (0…1), so that many clients losing the same
    /// server do not reconnect in lockstep.
    public var jitter: Double

    /// Creates a policy; the defaults wait 50 ms, 100 ms, 200 ms … up to 5 s, ±20 %.
    public init(initial: Duration = .milliseconds(50), maximum: Duration = .seconds(5), multiplier: Double = 2, jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before retry number `attempt` (0-based).
    public func delay(attempt: Int) -> Duration {
        let base = initial * Double.pow(multiplier, Double(min(attempt, 62)))
        let capped = min(base, maximum)
        let factor = 1 - jitter + Double.random(in: 0...(2 * jitter))
        return min(capped * factor, maximum)
    }
}

extension Double {
    fileprivate static func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= base }
        return result
    }
}
