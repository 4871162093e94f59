import XCTest

@testable import pushwire_bench

final class LatencyHistogramTests: XCTestCase {
    /// The exact value at `quantile` of sorted `values`, by the same nearest-rank rule.
    private func exact(_ sorted: [UInt64], _ quantile: Double) -> UInt64 {
        let rank = max(1, Int((quantile * Double(sorted.count)).rounded(.up)))
        return sorted[rank - 1]
    }

    private func assertWithinBound(_ h: LatencyHistogram, _ values: [UInt64], file: StaticString = #filePath, line: UInt = #line) {
        let sorted = values.sorted()
        for q in [0.01, 0.1, 0.5, 0.9, 0.99, 0.999] {
            let truth = Double(exact(sorted, q))
            let got = Double(h.value(atQuantile: q))
            XCTAssertLessThanOrEqual(abs(got - truth), truth * 0.01 + 0.5, "q=\(q): \(got) vs \(truth)", file: file, line: line)
        }
        XCTAssertEqual(h.min, sorted.first, file: file, line: line)
        XCTAssertEqual(h.max, sorted.last, file: file, line: line)
        XCTAssertEqual(h.count, UInt64(values.count), file: file, line: line)
    }

    func testUniformDistributionPercentilesWithinOnePercent() {
        var h = LatencyHistogram()
        let values = (1...100_000).map { UInt64($0) * 37 }
        for v in values { h.record(v) }
        assertWithinBound(h, values)
        XCTAssertEqual(h.mean, Double(values.reduce(0, +)) / Double(values.count), accuracy: 0.001)
    }

    func testLogNormalLikeDistributionAcrossDecades() {
        // Latencies from 1 µs to ~10 s: the dynamic range a load test sees with stalls.
        var generator = SystemRandomNumberGenerator()
        var h = LatencyHistogram()
        let values = (0..<50_000).map { _ in UInt64(pow(10, Double.random(in: 3...10, using: &generator))) }
        for v in values { h.record(v) }
        assertWithinBound(h, values)
    }

    func testSmallValuesAreExact() {
        var h = LatencyHistogram()
        for v in [UInt64](0..<100) { h.record(v) }
        XCTAssertEqual(h.value(atQuantile: 0.5), 49)
        XCTAssertEqual(h.value(atQuantile: 0.9), 89)
    }

    func testBucketWidthBoundsRelativeError() {
        for value: UInt64 in [128, 129, 1000, 123_456, 9_999_999, 1 << 40, UInt64.max] {
            let (low, width) = LatencyHistogram.bounds(of: LatencyHistogram.index(of: value))
            XCTAssertLessThanOrEqual(low, value)
            XCTAssertLessThanOrEqual(value - low, width - 1)
            XCTAssertLessThanOrEqual(Double(width), Double(low) / 128 + 1)
        }
        XCTAssertLessThan(LatencyHistogram.index(of: .max), LatencyHistogram.bucketCount)
    }

    func testMergeEqualsRecordingEverythingInOne() {
        var a = LatencyHistogram()
        var b = LatencyHistogram()
        var all = LatencyHistogram()
        for v in 1...20_000 {
            let value = UInt64(v * v)
            if v % 3 == 0 { a.record(value) } else { b.record(value) }
            all.record(value)
        }
        var merged = a
        merged.merge(b)
        XCTAssertEqual(merged, all)
        XCTAssertEqual(merged.value(atQuantile: 0.99), all.value(atQuantile: 0.99))
        var empty = LatencyHistogram()
        empty.merge(LatencyHistogram())
        XCTAssertEqual(empty.count, 0)
        XCTAssertEqual(empty.value(atQuantile: 0.5), 0)
    }

    func testReportTextAndJSON() throws {
        var h = LatencyHistogram()
        for v in 1...1000 { h.record(UInt64(v) * 1000) }
        let report = LoadReport(
            scenario: "ping", target: "127.0.0.1:1", connections: 4, concurrency: 16, rate: nil, duration: 2,
            latency: h, outcomes: ["OK": 990, "UNAVAILABLE": 10], harnessCPUSeconds: 0.001, threads: 1)
        XCTAssertEqual(report.requestsPerSecond, 500)
        XCTAssertEqual(report.errorCount, 10)
        let text = report.text()
        XCTAssertTrue(text.contains("Requests/sec: 500.0"))
        XCTAssertTrue(text.contains("[UNAVAILABLE] 10 calls"))
        XCTAssertTrue(text.contains("p99.9"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        XCTAssertEqual(json["count"] as? Int, 1000)
        let latency = try XCTUnwrap(json["latency"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(latency["p50_us"] as? Double), 500, accuracy: 5)
        XCTAssertEqual((json["histogram"] as? [Any])?.count, 12)
    }
}

final class LoadTestHistogramArrayTests: XCTestCase {
    /// Per-scenario histograms live in an array made with `repeating:`; they must not share state.
    func testHistogramsInAnArrayAreIndependent() {
        var histograms = [LatencyHistogram](repeating: LatencyHistogram(), count: 2)
        for v in 1...100 { histograms[0].record(UInt64(v)) }
        for v in 1000...1010 { histograms[1].record(UInt64(v)) }
        XCTAssertEqual(histograms[0].max, 100)
        XCTAssertEqual(histograms[1].min, 1000)
        var merged: [String: LatencyHistogram] = [:]
        merged["a", default: LatencyHistogram()].merge(histograms[0])
        merged["b", default: LatencyHistogram()].merge(histograms[1])
        XCTAssertEqual(merged["a"]?.max, 100)
        XCTAssertEqual(merged["b"]?.min, 1000)
        XCTAssertEqual(merged["b"]?.count, 11)
    }
}
