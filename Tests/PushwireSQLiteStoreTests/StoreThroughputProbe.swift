import Foundation
import PushwireSQLiteStore
import PushwireStore
import XCTest

/// Prints the store's group-commit upsert rate, for docs/BENCHMARKS.md. Not a timed test: it
/// asserts nothing about speed and runs only when asked:
///   PUSHWIRE_STORE_PROBE=20000 swift test -c release --filter StoreThroughputProbe
/// Compare with Scripts/sqlite-ceiling/run 20000 64 on the same machine.
final class StoreThroughputProbe: XCTestCase {
    func testGroupCommitUpsertRate() async throws {
        guard let total = ProcessInfo.processInfo.environment["PUSHWIRE_STORE_PROBE"].flatMap(Int.init) else {
            throw XCTSkip("set PUSHWIRE_STORE_PROBE=<rows> to measure")
        }
        let inFlight = 64
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        let app = try await store.createApplication(sampleApplication(code: "PROBE-00001"), initialCategories: [])
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<inFlight {
                group.addTask {
                    var i = worker
                    while i < total {
                        let token = String(repeating: "0", count: 48) + String(UInt64(i) &* 2_654_435_761, radix: 16)
                        try await store.upsertDevice(sampleDevice(app.id, "hwid-\(i)", token: token), tags: [])
                        i += inFlight
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let stats = store.statistics
        print("store upserts rows=\(total) in_flight=\(inFlight) seconds=\(String(format: "%.3f", seconds)) rows_per_second=\(Int(Double(total) / seconds)) transactions=\(stats.transactions) mean_batch=\(String(format: "%.1f", Double(stats.writes) / Double(stats.transactions)))")
        store.close()
    }
}
