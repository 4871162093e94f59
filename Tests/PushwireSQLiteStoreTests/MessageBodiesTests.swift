import CSQLite
import Foundation
import XCTest
@testable import PushwireSQLiteStore
import PushwireStore

/// A message's targeting and spec live in `message_bodies` (schema 8), beside its row: a file of
/// schema 7 keeps its messages' bodies across the upgrade, and a message whose body cannot be
/// written leaves no row behind.
final class MessageBodiesTests: XCTestCase {
    func testASchema7MessageKeepsItsTargetingAndSpecAfterTheUpgrade() async throws {
        let directory = try dataDirectory(atSchemaVersion: 7, with: """
            INSERT INTO applications (id, code, name, access_token_hash, categories_version, created_at) VALUES (1, 'BODY7-00001', 'seven', x'00', 1, 0);
            INSERT INTO messages (id, app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, created_at)
                VALUES (1, 1, 'OLD', 'tx-1', 1, 5, 3, '{"conditions":[],"hwids":["h1","h2"],"platforms":[],"userIDs":[]}', '{"defaultTexts":{"body":"seven"}}', 0);
            """)
        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        let found = try await store.message(applicationID: 1, code: "OLD")
        let message = try XCTUnwrap(found)
        XCTAssertEqual(message.id, 1)
        XCTAssertEqual(message.transactionID, "tx-1")
        XCTAssertEqual(message.categoryID, 3)
        XCTAssertEqual(message.targeting.hwids, ["h1", "h2"])
        XCTAssertEqual(message.spec, #"{"defaultTexts":{"body":"seven"}}"#)
        // The row no longer holds them.
        let columns = try SQLiteConnection(path: directory + "/" + SQLiteStore.fileName)
        let names = try columns.statement("SELECT group_concat(name) FROM pragma_table_info('messages')")
        XCTAssertTrue(try names.step())
        XCTAssertFalse(names.text(0).contains("spec"), names.text(0))
        XCTAssertFalse(names.text(0).contains("targeting"), names.text(0))
        names.reset()
    }

    /// A body refused by a trigger (standing in for a full disk) fails CreateMessage and removes
    /// the row just inserted: the message is not there, and the next one is stored whole.
    func testAMessageWhoseBodyFailsLeavesNoRow() async throws {
        let directory = temporaryDataDirectory()
        let store = try SQLiteStore(dataDirectory: directory)
        defer { store.close() }
        let app = try await store.createApplication(sampleApplication(code: "BODY8-00001"), initialCategories: [])
        let path = directory + "/" + SQLiteStore.fileName
        let other = try SQLiteConnection(path: path)
        try other.execute("CREATE TRIGGER refuse_body BEFORE INSERT ON message_bodies BEGIN SELECT RAISE(ABORT, 'no room for the body'); END")
        let refused = NewMessageRecord(applicationID: app.id, code: "REFUSED", transactionID: "", sendAtMS: 0, categoryID: 0,
                                       targeting: TargetingRecord(), spec: "{}")
        do {
            _ = try await store.createMessages([refused])
            XCTFail("the body's INSERT failed")
        } catch {
            XCTAssertTrue("\(error)".contains("no room for the body"), "\(error)")
        }
        try other.execute("DROP TRIGGER refuse_body")
        let stored = try await store.createMessages([NewMessageRecord(applicationID: app.id, code: "STORED", transactionID: "", sendAtMS: 0,
                                                                      categoryID: 0, targeting: TargetingRecord(), spec: "{}")])
        await asyncAssertEqual(try await store.message(applicationID: app.id, code: "REFUSED")?.id, nil)
        await asyncAssertEqual(try await store.message(applicationID: app.id, code: "STORED")?.id, stored[0].id)
        let rows = try other.statement("SELECT count(*) FROM messages")
        XCTAssertTrue(try rows.step())
        XCTAssertEqual(rows.int(0), 1, "no row without a body")
        rows.reset()
    }
}
