import PushwireStore

/// A duration that recurs (an fsync, a COMMIT), smoothed over about the last eight: steady enough
/// to plan by, quick to follow the disk when its speed changes.
struct SmoothedDuration {
    /// The smoothed duration in nanoseconds; 0 before the first sample.
    private(set) var nanoseconds: UInt64 = 0

    /// Adds one measured duration.
    mutating func add(_ sample: UInt64) {
        nanoseconds = nanoseconds == 0 ? sample : nanoseconds - nanoseconds / 8 + sample / 8
    }
}
