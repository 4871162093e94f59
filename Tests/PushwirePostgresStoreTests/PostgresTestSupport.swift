import Foundation
@testable import PushwirePostgresStore
import XCTest

/// A new, empty database on the test run's PostgreSQL, so that each test starts from nothing;
/// returns its URL.
func freshDatabaseURL() throws -> String {
    let base = try testDatabaseURL()
    let name = "pwtest_\(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF)"
    try PostgresStore.createDatabase(named: name, using: base)
    return PostgresStore.url(base, database: name)
}

/// Waits until `condition` holds, up to `timeout` seconds.
func eventually(timeout: TimeInterval = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return await condition()
}
