import Foundation
import PushwireStore

/// One `createMessages` call, written together with the adjacent calls of the writer's batch as
/// one INSERT (`MessageInsertGroup`). Under a stream of CreateMessage calls the writer's batch
/// holds dozens of them: one INSERT each cost a round trip per message on the one writer
/// connection.
///
/// `@unchecked Sendable`: `created` is written by `run` and read by `complete`, both on the
/// writer's one thread, one after the other.
final class MessageInsertJob: PGJob, @unchecked Sendable {
    let messages: [NewMessageRecord]
    /// Each message's targeting as stored (encoded on the caller's thread).
    let targetings: [String]
    let createdAt: Int64
    private let completion: @Sendable (Result<[MessageRecord], StoreError>) -> Void
    /// The records of the last run, until `complete`.
    fileprivate(set) var created: [MessageRecord]?

    init(messages: [NewMessageRecord], targetings: [String], createdAt: Int64,
         completion: @escaping @Sendable (Result<[MessageRecord], StoreError>) -> Void) {
        self.messages = messages
        self.targetings = targetings
        self.createdAt = createdAt
        self.completion = completion
    }

    func run(on connection: PGConnection) throws(StoreError) {
        try MessageInsertGroup([self]).run(on: connection)
    }

    func complete(_ error: StoreError?) {
        if let error {
            completion(.failure(error))
        } else if let created {
            completion(.success(created))
        } else {
            completion(.failure(.unavailable("the write was not run")))
        }
    }
}

/// Adjacent `createMessages` calls as one INSERT over arrays (one prepared statement however
/// many messages), plus one read of the stored messages whose transaction ids were already used:
/// a constant number of round trips for the writer's whole batch, and one when the batch is
/// nothing else (`PGStatementUnit`: no BEGIN, no COMMIT).
///
/// Transaction ids keep their promise (`PostgresStore.createMessages`): a message whose
/// (application, transaction id) is stored is not inserted (the `NOT EXISTS`), nor one that
/// another server commits meanwhile or an earlier message of the same statement took (`ON
/// CONFLICT … DO NOTHING` on that index); each of them is answered with the stored message,
/// read after the INSERT so that its snapshot holds what the INSERT waited for.
struct MessageInsertGroup: PGUnit {
    let jobs: [MessageInsertJob]

    init(_ jobs: [MessageInsertJob]) { self.jobs = jobs }

    var jobCount: Int { jobs.count }

    /// The rows in call order (`n`), so that ids grow with creation order; each inserted row is
    /// known by its code, which is unique. Each one, scheduled, enters the outbox (`PostgresOutbox`),
    /// under its lease if it has one (`NewMessageRecord.lease`).
    static let insertSQL = insertSQL(keyed: true)

    /// The INSERT for rows of which none has a transaction id: without `ON CONFLICT`, which
    /// makes every row a speculative insertion (a lock on a token, a second WAL record to
    /// confirm the row) even when the arbiter index, partial, cannot hold it.
    static let unkeyedInsertSQL = insertSQL(keyed: false)

    private static func insertSQL(keyed: Bool) -> String {
        """
        WITH r AS (
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[],
                                 $9::text[], $10::bigint[])
                WITH ORDINALITY AS r (app_id, code, transaction_id, send_at_ms, category_id, targeting, spec, lease_owner,
                                      lease_until_ms, n)),
        created AS (
            INSERT INTO messages (app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, created_at,
                                  lease_owner, lease_until_ms)
            SELECT app_id, code, transaction_id, 1, send_at_ms, category_id, targeting, spec, $8, lease_owner, lease_until_ms FROM r
        \(keyed ? """
            WHERE transaction_id = '' OR NOT EXISTS (
                SELECT 1 FROM messages m WHERE m.app_id = r.app_id AND m.transaction_id = r.transaction_id AND m.transaction_id <> '')
            ORDER BY n
            ON CONFLICT (app_id, transaction_id) WHERE transaction_id <> '' DO NOTHING
            """ : "ORDER BY n")
            RETURNING id, code, send_at_ms),
        queued AS (INSERT INTO message_outbox (send_at_ms, message_id) SELECT send_at_ms, id FROM created)
        SELECT id, code FROM created
        """
    }

    static let storedSQL = """
        SELECT \(PostgresStore.messageColumns) FROM messages
        WHERE transaction_id <> '' AND (app_id, transaction_id) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))
        """

    func run(on connection: PGConnection) throws(StoreError) {
        try write(on: connection, committedAsItEnds: false)
    }

    /// As `run`, outside a transaction block: the INSERT commits as it ends, so a failure of the
    /// read after it (the stored messages of taken transaction ids) must not make the writer run
    /// the INSERT again — it is `.unavailable`, and a retry with the same transaction ids finds
    /// what was created.
    func runAlone(on connection: PGConnection) throws(StoreError) {
        try write(on: connection, committedAsItEnds: true)
    }

    func complete(_ error: StoreError?) {
        for job in jobs { job.complete(error) }
    }

    /// Inserts every job's messages, reads the stored ones of taken transaction ids, and gives
    /// each job its records; a failed read is `.unavailable` once the INSERT has committed.
    private func write(on connection: PGConnection, committedAsItEnds: Bool) throws(StoreError) {
        var messages: [NewMessageRecord] = []
        var targetings: [String] = []
        for job in jobs {
            messages += job.messages
            targetings += job.targetings
        }
        let ids = try MessageInsertGroup.insertRows(messages, targetings: targetings, createdAt: jobs.first?.createdAt ?? 0,
                                                    on: connection)
        let records: [MessageRecord]
        do {
            records = try MessageInsertGroup.records(messages, ids: ids, on: connection)
        } catch {
            guard committedAsItEnds, !error.isUnavailable else { throw error }
            throw .unavailable("the messages were created but not read back (\(error)); retry with the same transaction ids")
        }
        var offset = 0
        for job in jobs {
            job.created = Array(records[offset..<offset + job.messages.count])
            offset += job.messages.count
        }
    }

    /// Inserts `messages` (one statement), returning each one's new id, or nil where its
    /// (application, transaction id) was taken.
    static func insertRows(_ messages: [NewMessageRecord], targetings: [String], createdAt: Int64,
                           on connection: PGConnection) throws(StoreError) -> [Int64?] {
        if messages.isEmpty { return [] }
        let inserted = try pg { () throws(PGError) in
            try connection.query(messages.contains { !$0.transactionID.isEmpty } ? insertSQL : unkeyedInsertSQL, [
                PGBinary.intArray(messages.map(\.applicationID)),
                PGBinary.textArray(messages.map(\.code)),
                PGBinary.textArray(messages.map(\.transactionID)),
                PGBinary.intArray(messages.map(\.sendAtMS)),
                PGBinary.intArray(messages.map { Int64($0.categoryID) }),
                PGBinary.textArray(targetings),
                PGBinary.textArray(messages.map(\.spec)),
                .text(String(createdAt)),
                PGBinary.optionalTextArray(messages.map { $0.lease?.owner }),
                PGBinary.intArray(messages.map { $0.lease?.untilMS ?? 0 }),
            ])
        }
        var idsByCode: [String: Int64] = [:]
        idsByCode.reserveCapacity(inserted.count)
        for row in 0..<inserted.count { idsByCode[inserted.text(row, 1)] = inserted.int(row, 0) }
        // Each code once (codes are unique: a second message with one would have failed the INSERT).
        return messages.map { idsByCode.removeValue(forKey: $0.code) }
    }

    /// Each message's record: the inserted one (`ids`), or the stored one with its (application,
    /// transaction id), read in one statement.
    static func records(_ messages: [NewMessageRecord], ids: [Int64?], on connection: PGConnection) throws(StoreError) -> [MessageRecord] {
        // The keyed messages not inserted: their transaction ids were taken.
        var stored: [Key: MessageRecord] = [:]
        let taken = zip(messages, ids).filter { $0.1 == nil && !$0.0.transactionID.isEmpty }.map(\.0)
        if !taken.isEmpty {
            for record in try PostgresStore.messages(connection, query: storedSQL, [
                PGText.intArray(taken.map(\.applicationID)), PGText.textArray(taken.map(\.transactionID)),
            ]) {
                stored[Key(applicationID: record.applicationID, transactionID: record.transactionID)] = record
            }
        }
        var records: [MessageRecord] = []
        records.reserveCapacity(messages.count)
        for (message, id) in zip(messages, ids) {
            if let id {
                records.append(MessageRecord(
                    id: id, applicationID: message.applicationID, code: message.code, transactionID: message.transactionID,
                    status: .scheduled, sendAtMS: message.sendAtMS, categoryID: message.categoryID, targeting: message.targeting,
                    spec: message.spec, cursor: nil))
            } else if let existing = stored[Key(applicationID: message.applicationID, transactionID: message.transactionID)] {
                records.append(existing)
            } else {
                throw .internalError("message \(message.code) (transaction id \(message.transactionID)) was neither inserted nor found")
            }
        }
        return records
    }

    private struct Key: Hashable {
        let applicationID: Int64
        let transactionID: String
    }
}
