import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// Two store objects on one database, as two servers: what must hold for the whole deployment
/// rather than for one writer.
final class PostgresSharedDatabaseTests: XCTestCase {
    /// The same transaction id sent to both at the same moment (a client retrying through the
    /// other server) creates one message, and both answer with it; a plain INSERT made the second
    /// fail with a unique violation.
    func testOneTransactionIDThroughTwoStoresAtOnceIsOneMessage() async throws {
        let url = try freshDatabaseURL()
        let a = try PostgresStore(url: url, readers: 1)
        let b = try PostgresStore(url: url, readers: 1)
        defer { a.close(); b.close() }
        let app = try await a.createApplication(
            ApplicationRecord(id: 0, code: "TXNID-00001", name: "txn", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                              createdAt: 1_700_000_000), initialCategories: [])
        func message(_ code: String, _ transactionID: String) -> NewMessageRecord {
            NewMessageRecord(applicationID: app.id, code: code, transactionID: transactionID, sendAtMS: 1_000, categoryID: 0,
                             targeting: TargetingRecord(), spec: "{}")
        }
        let rounds = 40
        for round in 0..<rounds {
            let transactionID = "txn-\(round)"
            async let throughA = a.createMessages([message("A\(round)", transactionID)])
            async let throughB = b.createMessages([message("B\(round)", transactionID)])
            let (first, second) = try await (throughA, throughB)
            XCTAssertEqual(first.map(\.id), second.map(\.id), "round \(round): two messages for one transaction id")
            XCTAssertEqual(first.map(\.code), second.map(\.code))
        }
        let connection = try PGConnection(url: url, connectTimeout: 5)
        XCTAssertEqual(try connection.query("SELECT count(*) FROM messages").int(0, 0), Int64(rounds))
    }
}
