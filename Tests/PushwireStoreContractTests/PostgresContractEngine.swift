import Foundation
import PushwirePostgresStore
import PushwireStore
import XCTest

extension ContractEngine {
    /// PostgreSQL: a new database on the test run's server (`PUSHWIRE_TEST_DATABASE_URL`, which
    /// `Scripts/test` sets, so CI always runs it). Without it each test is skipped after its
    /// SQLite run, with a warning on stderr naming the variable.
    static let postgres = ContractEngine(name: "PostgreSQL") {
        guard let base = ProcessInfo.processInfo.environment["PUSHWIRE_TEST_DATABASE_URL"], !base.isEmpty else {
            let message = "\(PostgresContractUnavailable())"
            FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
            throw XCTSkip(message)
        }
        let name = "pwcontract_\(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF)"
        try PostgresStore.createDatabase(named: name, using: base)
        return try PostgresStore(url: PostgresStore.url(base, database: name), readers: 2)
    }
}

/// The PostgreSQL engine was not run: no test database.
struct PostgresContractUnavailable: Error, CustomStringConvertible {
    var description: String {
        "PUSHWIRE_TEST_DATABASE_URL is not set: the store contract was NOT run against PostgreSQL (Scripts/test sets it; or Scripts/postgres start and export the URL it prints)"
    }
}
