import XCTest
import PushwireWire
@testable import PushwireClient

/// Prints client throughput and latency figures against the in-test fake server. Not a timed
/// test: it asserts nothing about speed and runs only with PUSHWIRE_MEASURE=1, in release mode:
/// `PUSHWIRE_MEASURE=1 swift test -c release --filter ClientMeasurements`.
final class ClientMeasurements: XCTestCase {
    func testThroughputAndLatency() async throws {
        guard ProcessInfo.processInfo.environment["PUSHWIRE_MEASURE"] == "1" else { throw XCTSkip("set PUSHWIRE_MEASURE=1") }
        // PUSHWIRE_MEASURE_SERVER=host:port measures against a real server instead of the fake one.
        let fake = ProcessInfo.processInfo.environment["PUSHWIRE_MEASURE_SERVER"] == nil
            ? try FakeServer { peer, request in peer.respond(request.callID, body: HealthCheckResponse(status: .serving).encode()) }
            : nil
        defer { fake?.stop() }
        let address = ProcessInfo.processInfo.environment["PUSHWIRE_MEASURE_SERVER"] ?? fake?.address ?? ""
        print("measuring against \(fake == nil ? address : "the in-test fake server")")
        let seconds = 3.0

        // 4 connections × 16 calls in flight.
        var connections: [ClientConnection] = []
        for _ in 0..<4 { connections.append(try await ClientConnection.connect(to: address)) }
        let pool = connections
        let stop = ContinuousClock.now + .seconds(seconds)
        let completed = await withTaskGroup(of: Int.self) { group in
            for connection in pool {
                for _ in 0..<16 {
                    group.addTask {
                        var count = 0
                        while ContinuousClock.now < stop {
                            _ = try? await connection.health.check(HealthCheckRequest(), options: CallOptions(timeout: .seconds(5)))
                            count += 1
                        }
                        return count
                    }
                }
            }
            return await group.reduce(0, +)
        }
        print("client 4 conns x 16 in flight: \(completed) calls in \(seconds) s = \(Int(Double(completed) / seconds)) calls/s")
        for connection in connections { connection.close() }

        // 1 connection, 1 call at a time.
        let single = try await ClientConnection.connect(to: address)
        defer { single.close() }
        var latencies: [Duration] = []
        let end = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < end {
            let start = ContinuousClock.now
            _ = try await single.health.check(HealthCheckRequest())
            latencies.append(start.duration(to: .now))
        }
        latencies.sort()
        func pct(_ p: Double) -> String { "\(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))])" }
        print("client 1 conn x 1 in flight: \(latencies.count) calls, p50 \(pct(0.5)), p90 \(pct(0.9)), p99 \(pct(0.99))")
    }
}
