import Synchronization

/// Lets a recurring warning through at most once per interval, counting the occurrences it held
/// back, so that a condition that repeats many times a second (accept failing for lack of file
/// descriptors, retried on every tick) costs one log line per interval, not one per attempt.
final class RateLimitedWarning: Sendable {
    private struct State {
        var lastLogged: UInt64?
        var suppressed = 0
    }

    private let intervalNanos: UInt64
    private let state = Mutex(State())

    init(intervalNanos: UInt64) {
        self.intervalNanos = intervalNanos
    }

    /// Records one occurrence at `now` (monotonic nanoseconds); returns the number of occurrences
    /// held back since the last one let through when this one should be logged, nil otherwise.
    func occurred(now: UInt64) -> Int? {
        state.withLock { state in
            if let last = state.lastLogged, now &- last < intervalNanos {
                state.suppressed += 1
                return nil
            }
            let held = state.suppressed
            state.lastLogged = now
            state.suppressed = 0
            return held
        }
    }
}
