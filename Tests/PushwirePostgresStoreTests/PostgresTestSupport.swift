import Foundation
import XCTest

/// The URL of the test run's PostgreSQL (`Scripts/test` starts one and exports it), or a skip
/// with a loud message when it is not set (CI always sets it).
func testDatabaseURL() throws -> String {
    guard let url = ProcessInfo.processInfo.environment["PUSHWIRE_TEST_DATABASE_URL"], !url.isEmpty else {
        let message = "PUSHWIRE_TEST_DATABASE_URL is not set: PostgreSQL tests SKIPPED (run Scripts/test, or Scripts/postgres start and export the URL)"
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
        throw XCTSkip(message)
    }
    return url
}
