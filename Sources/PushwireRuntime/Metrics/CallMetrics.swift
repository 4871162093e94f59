import PushwireWire

/// Calls by method and status code, and a latency histogram per method: recorded wherever a
/// registered handler or raw fast path answers (both doors), summed at scrape.
final class CallMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds (`+Inf` is implied).
    static let bucketBounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private static let boundNanos: [UInt64] = bucketBounds.map { UInt64($0 * 1e9) }
    /// The `le` label of each bucket, formatted once.
    private static let boundLabels: [String] = bucketBounds.map(PrometheusText.format)
    private static let codes = 17
    /// Per method: one counter per bucket (the last is `+Inf`), the sum in nanoseconds.
    private static let histogramSlots = bucketBounds.count + 2

    /// Method paths in index order.
    let paths: [String]
    private let indexByPath: [String: Int]
    private let outcomes: ShardedCounters
    private let latencies: ShardedCounters

    init(paths: [String]) {
        self.paths = paths
        indexByPath = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($1, $0) })
        outcomes = ShardedCounters(count: paths.count * Self.codes)
        latencies = ShardedCounters(count: paths.count * Self.histogramSlots)
    }

    /// The index of `path`, for `record`; nil for a path that is not a method.
    func index(of path: String) -> Int? { indexByPath[path] }

    /// Counts one call of method `index` that ended with `status` after `nanos`.
    @inline(__always)
    func record(_ index: Int, status: StatusCode, nanos: UInt64) {
        let code = min(Int(status.rawValue), Self.codes - 1)
        let shard = ShardedCounters.currentShard
        outcomes.add(index * Self.codes + code, inShard: shard)
        var bucket = 0
        let bounds = Self.boundNanos
        while bucket < bounds.count, nanos > bounds[bucket] { bucket += 1 }
        let base = index * Self.histogramSlots
        latencies.add(base + bucket, inShard: shard)
        latencies.add(base + Self.histogramSlots - 1, nanos, inShard: shard)
    }

    /// Appends `pushwire_calls_total` and `pushwire_call_duration_seconds`.
    func render(into out: inout PrometheusText) {
        out.family("pushwire_calls_total", "counter", help: "Calls answered, by method and status code (both doors).")
        for (index, path) in paths.enumerated() {
            for code in 0..<Self.codes {
                let value = outcomes.value(index * Self.codes + code)
                guard value > 0 else { continue }
                let name = StatusCode(rawValue: UInt32(code)).map(\.name) ?? "\(code)"
                out.sample("pushwire_calls_total", [("method", path), ("code", name)], value)
            }
        }
        out.family("pushwire_call_duration_seconds", "histogram", help: "Time from a request's arrival to its answer, by method.")
        for (index, path) in paths.enumerated() {
            let base = index * Self.histogramSlots
            var cumulative: UInt64 = 0
            for bucket in 0...Self.bucketBounds.count { cumulative &+= latencies.value(base + bucket) }
            guard cumulative > 0 else { continue }
            cumulative = 0
            for (bucket, bound) in Self.boundLabels.enumerated() {
                cumulative &+= latencies.value(base + bucket)
                out.sample("pushwire_call_duration_seconds_bucket", [("method", path), ("le", bound)], cumulative)
            }
            cumulative &+= latencies.value(base + Self.bucketBounds.count)
            out.sample("pushwire_call_duration_seconds_bucket", [("method", path), ("le", "+Inf")], cumulative)
            out.sample("pushwire_call_duration_seconds_sum", [("method", path)], Double(latencies.value(base + Self.histogramSlots - 1)) / 1e9)
            out.sample("pushwire_call_duration_seconds_count", [("method", path)], cumulative)
        }
    }
}
