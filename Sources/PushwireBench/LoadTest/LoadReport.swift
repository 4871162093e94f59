import Foundation

/// The outcome of a load test, shaped like ghz's and wrk's reports: count, duration, rate,
/// latency percentiles, a latency histogram and errors by status code name.
public struct LoadReport: Sendable {
    /// What was run, e.g. `ping`, `health`, `call /pushwire.v1.Health/Check`, `mix`.
    public var scenario: String
    /// `host:port` of the server.
    public var target: String
    /// Connections opened.
    public var connections: Int
    /// Calls kept in flight per connection.
    public var concurrency: Int
    /// The fixed arrival rate asked for (calls/s across all connections); `nil` for closed loop.
    public var rate: Double?
    /// Seconds of measurement (warm-up excluded).
    public var duration: Double
    /// Every measured call's latency, OK or not; from the intended send time under `rate`.
    public var latency: LatencyHistogram
    /// Calls per status code name (`OK`, `UNAVAILABLE`, …) plus local failures (`CONNECTION_CLOSED`).
    public var outcomes: [String: UInt64]
    /// Per-scenario latency when several ran (`mix`), keyed by scenario name.
    public var perScenario: [String: LatencyHistogram]
    /// CPU seconds (user + system) the harness threads spent, for the harness's per-call cost.
    public var harnessCPUSeconds: Double
    /// Harness threads used.
    public var threads: Int

    /// Creates a report.
    public init(
        scenario: String, target: String, connections: Int, concurrency: Int, rate: Double?, duration: Double,
        latency: LatencyHistogram, outcomes: [String: UInt64], perScenario: [String: LatencyHistogram] = [:],
        harnessCPUSeconds: Double, threads: Int
    ) {
        self.scenario = scenario
        self.target = target
        self.connections = connections
        self.concurrency = concurrency
        self.rate = rate
        self.duration = duration
        self.latency = latency
        self.outcomes = outcomes
        self.perScenario = perScenario
        self.harnessCPUSeconds = harnessCPUSeconds
        self.threads = threads
    }

    /// Calls measured, whatever their outcome.
    public var count: UInt64 { latency.count }
    /// Calls that did not end OK.
    public var errorCount: UInt64 { outcomes.filter { $0.key != "OK" }.values.reduce(0, +) }
    /// Completed calls per second.
    public var requestsPerSecond: Double { duration > 0 ? Double(count) / duration : 0 }
    /// Harness CPU per call, in microseconds.
    public var harnessMicrosecondsPerCall: Double { count > 0 ? harnessCPUSeconds * 1e6 / Double(count) : 0 }

    /// The percentiles reported, as (label, quantile).
    public static let percentiles: [(String, Double)] = [
        ("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999),
    ]

    /// The human-readable report.
    public func text(histogramRows: Int = 12) -> String {
        var lines: [String] = []
        lines.append("Summary:")
        lines.append("  Scenario:     \(scenario)")
        lines.append("  Target:       \(target)")
        var shape = "  Load:         \(connections) connections × \(concurrency) in flight"
        if let rate { shape += ", fixed rate \(Self.number(rate)) calls/s (latency from intended send time)" }
        lines.append(shape)
        lines.append("  Count:        \(count)")
        lines.append("  Duration:     \(String(format: "%.2f", duration)) s")
        lines.append("  Requests/sec: \(String(format: "%.1f", requestsPerSecond))")
        lines.append("  Harness CPU:  \(String(format: "%.3f", harnessMicrosecondsPerCall)) µs/call on \(threads) thread(s)")
        lines.append("")
        lines.append("Latency:")
        lines.append(latencyLine(latency))
        if perScenario.count > 1 {
            for (name, histogram) in perScenario.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(name) (\(histogram.count) calls):")
                lines.append("  " + latencyLine(histogram))
            }
        }
        lines.append("")
        lines.append("Latency histogram:")
        lines.append(contentsOf: Self.asciiHistogram(latency, rows: histogramRows))
        lines.append("")
        lines.append("Status code distribution:")
        if outcomes.isEmpty { lines.append("  (no calls completed)") }
        for (name, n) in outcomes.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
            lines.append("  [\(name)] \(n) calls")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func latencyLine(_ h: LatencyHistogram) -> String {
        var parts = ["min \(Self.duration(h.count == 0 ? 0 : h.min))", "mean \(Self.duration(UInt64(h.mean)))"]
        for (label, q) in Self.percentiles { parts.append("\(label) \(Self.duration(h.value(atQuantile: q)))") }
        parts.append("max \(Self.duration(h.max))")
        return "  " + parts.joined(separator: "  ")
    }

    /// `rows` log-spaced bins from min to max: each bin's upper bound (ns) and count.
    public static func histogramRows(_ histogram: LatencyHistogram, rows: Int) -> [(upperBound: UInt64, count: UInt64)] {
        guard histogram.count > 0, rows > 0 else { return [] }
        let low = Double(Swift.max(histogram.min, 1))
        let high = Double(Swift.max(histogram.max, histogram.min + 1))
        let ratio = pow(high / low, 1 / Double(rows))
        let edges = (0...rows).map { low * pow(ratio, Double($0)) }
        var bins = [UInt64](repeating: 0, count: rows)
        for (value, n) in histogram.nonEmptyBuckets {
            var row = 0
            while row < rows - 1, Double(value) >= edges[row + 1] { row += 1 }
            bins[row] += n
        }
        return (0..<rows).map { (UInt64(edges[$0 + 1]), bins[$0]) }
    }

    /// An ASCII histogram of `histogram`: `rows` log-spaced bins from min to max, bars scaled to
    /// the fullest bin.
    public static func asciiHistogram(_ histogram: LatencyHistogram, rows: Int, width: Int = 40) -> [String] {
        let bins = histogramRows(histogram, rows: rows)
        guard !bins.isEmpty else { return ["  (empty)"] }
        let fullest = Swift.max(bins.map(\.count).max() ?? 1, 1)
        return bins.map { bin in
            let bar = String(repeating: "∎", count: Int((Double(bin.count) / Double(fullest) * Double(width)).rounded()))
            let label = duration(bin.upperBound).padding(toLength: 10, withPad: " ", startingAt: 0)
            let n = String(bin.count).padding(toLength: 10, withPad: " ", startingAt: 0)
            return "  ≤ \(label) [\(n)] |\(bar)"
        }
    }

    /// A duration in nanoseconds as `850ns`, `12.3µs`, `4.56ms` or `1.23s`.
    public static func duration(_ ns: UInt64) -> String {
        let v = Double(ns)
        if v < 1_000 { return "\(ns)ns" }
        if v < 1_000_000 { return String(format: "%.1fµs", v / 1e3) }
        if v < 1_000_000_000 { return String(format: "%.2fms", v / 1e6) }
        return String(format: "%.2fs", v / 1e9)
    }

    static func number(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v)
    }

    /// The report as a JSON object (keys sorted): latencies in microseconds.
    public func json() -> String {
        func summary(_ h: LatencyHistogram) -> [String: Any] {
            var s: [String: Any] = [
                "count": h.count, "min_us": Double(h.count == 0 ? 0 : h.min) / 1e3, "mean_us": h.mean / 1e3,
                "max_us": Double(h.max) / 1e3,
            ]
            for (label, q) in Self.percentiles {
                s[label.replacingOccurrences(of: ".", with: "_") + "_us"] = Double(h.value(atQuantile: q)) / 1e3
            }
            return s
        }
        var object: [String: Any] = [
            "scenario": scenario, "target": target, "connections": connections, "concurrency": concurrency,
            "duration_s": duration, "count": count, "requests_per_second": requestsPerSecond,
            "errors": errorCount, "status_codes": outcomes.mapValues { NSNumber(value: $0) },
            "latency": summary(latency), "harness_cpu_s": harnessCPUSeconds,
            "harness_us_per_call": harnessMicrosecondsPerCall, "threads": threads,
            "histogram": Self.histogramRows(latency, rows: 12).map { ["le_us": Double($0.upperBound) / 1e3, "count": $0.count] },
        ]
        if let rate { object["rate"] = rate }
        if perScenario.count > 1 { object["scenarios"] = perScenario.mapValues(summary) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
            let text = String(data: data, encoding: .utf8)
        else { return "{}" }
        return text
    }
}
