/// A high-dynamic-range histogram of latencies in nanoseconds, in the manner of HdrHistogram:
/// log-linear buckets whose width is at most 1/128 of their lower bound, so any value it reports
/// is within 0.4 % of a recorded one (it reports bucket midpoints), from 1 ns to centuries.
///
/// Recording is a shift, a count-leading-zeros and an add: cheap enough for the load generator's
/// hot path. Histograms with the same layout merge by adding counts, so each harness thread keeps
/// its own and the report merges them at the end.
public struct LatencyHistogram: Sendable, Equatable {
    /// log2 of the number of linear sub-buckets per power of two. 7 bits: 128 sub-buckets, a
    /// relative bucket width of at most 1/128 (0.78 %), so midpoints are within 0.39 %.
    static let subBucketBits = 7
    static let subBucketCount = 1 << subBucketBits
    /// Values below `subBucketCount` are exact; above, 57 more halves of 128 buckets reach 2^64.
    static let bucketCount = subBucketCount * (64 - subBucketBits + 1)

    /// The worst relative error of a reported value against the recorded one it stands for.
    public static let maximumRelativeError = 0.5 / Double(subBucketCount)

    private(set) var counts: [UInt64]
    /// How many values were recorded.
    public private(set) var count: UInt64 = 0
    /// The smallest recorded value, exactly; `UInt64.max` when empty.
    public private(set) var min: UInt64 = .max
    /// The largest recorded value, exactly; 0 when empty.
    public private(set) var max: UInt64 = 0
    /// The sum of recorded values (for the mean); saturates rather than traps on overflow.
    public private(set) var sum: UInt64 = 0

    /// An empty histogram.
    public init() {
        counts = [UInt64](repeating: 0, count: Self.bucketCount)
    }

    static func index(of value: UInt64) -> Int {
        if value < UInt64(subBucketCount) { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount  // floor(log2(value)) >= subBucketBits
        let shift = exponent - subBucketBits
        let sub = Int(value >> UInt64(shift)) - subBucketCount  // 0..<subBucketCount
        return (shift + 1) * subBucketCount + sub
    }

    /// The lowest value of bucket `index` and its width.
    static func bounds(of index: Int) -> (low: UInt64, width: UInt64) {
        if index < subBucketCount { return (UInt64(index), 1) }
        let shift = index / subBucketCount - 1
        let sub = index % subBucketCount
        return (UInt64(subBucketCount + sub) << UInt64(shift), 1 << UInt64(shift))
    }

    /// Records one value.
    @inline(__always)
    public mutating func record(_ value: UInt64) {
        counts[Self.index(of: value)] &+= 1
        count &+= 1
        let (newSum, overflow) = sum.addingReportingOverflow(value)
        sum = overflow ? .max : newSum
        if value < min { min = value }
        if value > max { max = value }
    }

    /// Adds every value recorded in `other`.
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for i in 0..<counts.count where other.counts[i] != 0 { counts[i] &+= other.counts[i] }
        count &+= other.count
        let (newSum, overflow) = sum.addingReportingOverflow(other.sum)
        sum = overflow ? .max : newSum
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
    }

    /// The mean of recorded values; 0 when empty.
    public var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }

    /// The value at `quantile` (0…1): the midpoint of the bucket holding the value of that rank,
    /// clamped to the exact minimum and maximum. 0 when empty.
    public func value(atQuantile quantile: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        if quantile <= 0 { return min }
        if quantile >= 1 { return max }
        let rank = Swift.max(1, UInt64((quantile * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for i in 0..<counts.count where counts[i] != 0 {
            seen &+= counts[i]
            if seen >= rank { return Swift.min(Swift.max(Self.midpoint(of: i), min), max) }
        }
        return max
    }

    static func midpoint(of index: Int) -> UInt64 {
        let (low, width) = bounds(of: index)
        return low + (width - 1) / 2
    }

    /// Non-empty buckets as (midpoint value, count), in increasing order of value.
    public var nonEmptyBuckets: [(value: UInt64, count: UInt64)] {
        var result: [(value: UInt64, count: UInt64)] = []
        for i in 0..<counts.count where counts[i] != 0 { result.append((Self.midpoint(of: i), counts[i])) }
        return result
    }
}
