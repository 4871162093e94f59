import Foundation
import PushwireStore

/// Messages, taps and statistics on SQLite (targets are in SQLiteStore+Targets, fan-out steps in SQLiteStore+FanOutSteps).
extension SQLiteStore: MessageStore {
    /// A message's columns, from its row joined with its body (`message_bodies`).
    static let messageColumns = """
        id, app_id, code, transaction_id, status, send_at_ms, category_id, body.targeting, body.spec, cursor
        """

    static func readMessage(_ row: Statement) -> MessageRecord? {
        guard let status = MessageStatusRecord(rawValue: row.int(4)),
              let targeting = TargetingJSON.decode(row.text(7))
        else { return nil }
        return MessageRecord(
            id: row.int(0), applicationID: row.int(1), code: row.text(2), transactionID: row.text(3), status: status,
            sendAtMS: row.int(5), categoryID: UInt32(truncatingIfNeeded: row.int(6)), targeting: targeting,
            spec: row.text(8), cursor: row.isNull(9) ? nil : row.text(9))
    }

    private static func messageRow(_ connection: SQLiteConnection, where clause: String, _ values: [SQLValue]) throws(StoreError) -> MessageRecord? {
        try sql { () throws(SQLiteError) in
            let row = try connection.statement("""
                SELECT \(messageColumns) FROM messages JOIN message_bodies body ON body.message_id = messages.id WHERE \(clause)
                """)
            try row.bind(values)
            defer { row.reset() }
            return try row.step() ? readMessage(row) : nil
        }
    }

    public func createMessages(_ messages: [NewMessageRecord]) async throws(StoreError) -> [MessageRecord] {
        let result: Result<[MessageRecord], StoreError> = await withCheckedContinuation { continuation in
            createMessages(messages) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    public func createMessages(_ messages: [NewMessageRecord],
                               completion: @escaping @Sendable (Result<[MessageRecord], StoreError>) -> Void) {
        let now = Int64(Date().timeIntervalSince1970)
        // Encoded here, on the caller's thread: the writer's time bounds every write.
        let encoded = messages.map { TargetingJSON.encode($0.targeting) }
        // One message needs no savepoint of its own (the transaction-id lookup only reads): a
        // failed INSERT undoes itself, and `insertMessage` undoes the row when its body's fails.
        // Several must stand or fall together, which the savepoint gives.
        let leases = leases
        writer.write({ connection throws(StoreError) in
            var created: [MessageRecord] = []
            created.reserveCapacity(messages.count)
            for (message, targeting) in zip(messages, encoded) {
                created.append(try SQLiteStore.insertMessage(message, targeting: targeting, createdAt: now, on: connection))
            }
            // Leases live in memory (`LeaseTable`): those created under one hold it from here (a
            // message answered with the one stored for its transaction id keeps what it has).
            // Taken on the writer's thread, which checks and releases them with each step: taken
            // by the completion, the table's memory moved between two cores twice per message
            // (in a profile, taking and holding were 0.4 µs of a small CreateMessage's CPU).
            // Held before the commit is durable, so no look at the outbox passes in between;
            // should the commit fail, they expire as any lease does (a message whose state is
            // unknown is then taken by the next look, if it was stored).
            leases.hold(messages, created: created)
            return created
        }, undoesItself: messages.count == 1, completion: completion)
    }

    /// Inserts one message, or returns the stored one with the same (application, transaction id).
    private static func insertMessage(_ message: NewMessageRecord, targeting: String, createdAt now: Int64,
                                      on connection: SQLiteConnection) throws(StoreError) -> MessageRecord {
        if !message.transactionID.isEmpty,
           let existing = try SQLiteStore.messageRow(connection, where: "app_id = ?1 AND transaction_id = ?2",
                                                     [.int(message.applicationID), .text(message.transactionID)]) {
            return existing
        }
        let id = try sql { () throws(SQLiteError) in
            let insert = try connection.statement(SQLiteStore.insertMessageSQL)
            try insert.bind(1, message.applicationID)
            try insert.bind(2, message.code)
            try insert.bind(3, message.transactionID)
            try insert.bind(4, message.sendAtMS)
            try insert.bind(5, Int64(message.categoryID))
            try insert.bind(6, now)
            try insert.run()
            return connection.lastInsertRowID
        }
        do {
            try sql { () throws(SQLiteError) in
                let body = try connection.statement(SQLiteStore.insertBodySQL)
                try body.bind(1, id)
                try body.bind(2, targeting)
                try body.bind(3, message.spec)
                try body.run()
            }
        } catch {
            try undoInsertedRow(of: id, after: error, on: connection)
        }
        return MessageRecord(
            id: id, applicationID: message.applicationID, code: message.code,
            transactionID: message.transactionID, status: .scheduled, sendAtMS: message.sendAtMS,
            categoryID: message.categoryID, targeting: message.targeting, spec: message.spec, cursor: nil)
    }

    private static let insertMessageSQL: StaticString = """
        INSERT INTO messages (app_id, code, transaction_id, status, send_at_ms, category_id, created_at)
        VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6)
        """

    private static let insertBodySQL: StaticString = "INSERT INTO message_bodies (message_id, targeting, spec) VALUES (?1, ?2, ?3)"

    /// Removes the row of message `id` when its body could not be written, then throws `error`:
    /// the job stays one that undoes itself when it fails. Should the removal fail too, the
    /// whole transaction is rolled back, so that no row without a body commits: every job of
    /// the batch then fails with `error` (the writer notes the abort, `GroupCommitWriter.runAlone`).
    private static func undoInsertedRow(of id: Int64, after error: StoreError, on connection: SQLiteConnection) throws(StoreError) -> Never {
        do {
            try sql { () throws(SQLiteError) in
                try connection.statement("DELETE FROM messages WHERE id = ?1" as StaticString).bind(.int(id)).run()
            }
        } catch {
            if !connection.isAutocommit { _ = try? connection.execute("ROLLBACK") }
        }
        throw error
    }

    public func message(applicationID: Int64, code: String) async throws(StoreError) -> MessageRecord? {
        try read { connection throws(StoreError) in
            try SQLiteStore.messageRow(connection, where: "code = ?1 AND app_id = ?2", [.text(code), .int(applicationID)])
        }
    }

    public func message(id: Int64) async throws(StoreError) -> MessageRecord? {
        try read { connection throws(StoreError) in
            try SQLiteStore.messageRow(connection, where: "id = ?1", [.int(id)])
        }
    }

    public func messages(ids: [Int64]) async throws(StoreError) -> [Int64: MessageRecord] {
        // One read transaction for all (the scheduler reads every message it starts).
        try read { connection throws(StoreError) in
            var found: [Int64: MessageRecord] = [:]
            found.reserveCapacity(ids.count)
            for id in ids {
                if let message = try SQLiteStore.messageRow(connection, where: "id = ?1", [.int(id)]) { found[id] = message }
            }
            return found
        }
    }

    public func listMessages(applicationID: Int64, beforeID: Int64?, limit: Int) async throws(StoreError) -> [MessageSummaryRecord] {
        try read(snapshot: true) { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                // Walks `messages_by_app` backwards from the cursor: a page costs its rows, however
                // many messages the application has.
                let rows = try connection.statement("""
                    SELECT id, code, status, send_at_ms, category_id, targeted, sent, failed FROM messages
                    WHERE app_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3
                    """)
                try rows.bind(.int(applicationID), .int(beforeID ?? Int64.max), .int(Int64(max(0, limit))))
                defer { rows.reset() }
                var page: [MessageSummaryRecord] = []
                while try rows.step() {
                    guard let status = MessageStatusRecord(rawValue: rows.int(2)) else { continue }
                    page.append(MessageSummaryRecord(
                        id: rows.int(0), code: rows.text(1), status: status, sendAtMS: rows.int(3),
                        categoryID: UInt32(truncatingIfNeeded: rows.int(4)), targeted: UInt64(clamping: rows.int(5)),
                        sent: UInt64(clamping: rows.int(6)), failed: UInt64(clamping: rows.int(7))))
                }
                return page
            }
        }
    }

    public func cancelMessage(applicationID: Int64, code: String) async throws(StoreError) -> MessageStatusRecord? {
        try await writer.write { connection throws(StoreError) in
            guard let message = try SQLiteStore.messageRow(connection, where: "code = ?1 AND app_id = ?2",
                                                           [.text(code), .int(applicationID)]) else { return nil }
            if message.status == .scheduled {
                try sql { () throws(SQLiteError) in
                    try connection.statement("UPDATE messages SET status = 4 WHERE id = ?1").bind(.int(message.id)).run()
                }
            }
            return message.status
        }
    }

    public func dueMessages(nowMS: Int64, limit: Int) async throws(StoreError) -> [MessageRecord] {
        try read { connection throws(StoreError) in
            var due: [MessageRecord] = []
            let walk = try SQLiteStore.dueWalk(connection, nowMS: nowMS, limit: limit, includeSending: true)
            for id in batches.uncut(walk.map(\.id)) {
                if let message = try SQLiteStore.messageRow(connection, where: "id = ?1", [.int(id)]) { due.append(message) }
            }
            return due
        }
    }

    public func dueMessageIDs(nowMS: Int64, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64] {
        try batches.uncut(read { connection throws(StoreError) in
            try SQLiteStore.dueWalk(connection, nowMS: nowMS, limit: limit, includeSending: includeSending).map(\.id)
        })
    }

    /// A message `dueWalk` found.
    private struct DueMessage {
        let id: Int64
        let sendAtMS: Int64
        let sending: Bool
    }

    /// At most `limit` due messages by send time, then id: a walk of `messages_due` (status,
    /// send_at_ms; partial: `status IN (1, 2)`, which each query repeats so that SQLite may use
    /// it) for each status, each already in order so that LIMIT stops it early — a backlog of
    /// scheduled messages costs nothing per wake-up (one query with `status = 2 OR …` sorted
    /// every due row) — the two merged in one pass.
    private static func dueWalk(_ connection: SQLiteConnection, nowMS: Int64, limit: Int,
                                includeSending: Bool) throws(StoreError) -> [DueMessage] {
        try sql { () throws(SQLiteError) in
            func walk(sending: Bool) throws(SQLiteError) -> [DueMessage] {
                // Two literals: the status a constant, as the partial index's condition is, and
                // each statement found by its literal's address (`statement(_: StaticString)`).
                let sql: StaticString = sending
                    ? "SELECT id, send_at_ms FROM messages WHERE status IN (1, 2) AND status = 2 AND send_at_ms <= ?1 ORDER BY send_at_ms, id LIMIT ?2"
                    : "SELECT id, send_at_ms FROM messages WHERE status IN (1, 2) AND status = 1 AND send_at_ms <= ?1 ORDER BY send_at_ms, id LIMIT ?2"
                let walk = try connection.statement(sql)
                try walk.bind(.int(nowMS), .int(Int64(limit)))
                var found: [DueMessage] = []
                while try walk.step() { found.append(DueMessage(id: walk.int(0), sendAtMS: walk.int(1), sending: sending)) }
                walk.reset()
                return found
            }
            let scheduled = try walk(sending: false)
            guard includeSending else { return scheduled }
            let sending = try walk(sending: true)
            if sending.isEmpty { return scheduled }
            var merged: [DueMessage] = []
            merged.reserveCapacity(min(limit, sending.count + scheduled.count))
            var (s, c) = (0, 0)
            while merged.count < limit, s < sending.count || c < scheduled.count {
                let takeSending = c == scheduled.count
                    || (s < sending.count && (sending[s].sendAtMS, sending[s].id) < (scheduled[c].sendAtMS, scheduled[c].id))
                if takeSending {
                    merged.append(sending[s])
                    s += 1
                } else {
                    merged.append(scheduled[c])
                    c += 1
                }
            }
            return merged
        }
    }

    public func claimDueMessages(_ lease: MessageLease, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64] {
        // Read far enough ahead to pass the messages leases hold. Leases live in memory: no
        // write, nothing to sync. Messages cut into batches are claimed batch by batch
        // (`claimFanOutBatches`), not whole. As on PostgreSQL: sending ones under the owner's own
        // lease are taken again, scheduled ones not (it holds them in memory, created under it).
        // A look under a stream of CreateMessage reads past thousands held here: no sort, no set
        // of them unless some message was cut.
        let due = try read { connection throws(StoreError) in
            try SQLiteStore.dueWalk(connection, nowMS: lease.nowMS, limit: limit + leases.count, includeSending: includeSending)
        }
        let ids = due.map(\.id)
        let uncut = batches.uncut(ids)
        let kept = uncut.count == ids.count ? due : { let set = Set(uncut); return due.filter { set.contains($0.id) } }()
        return leases.claim(kept.map { ($0.id, takingOwn: $0.sending) }, lease, limit: limit)
    }

    public func renewLeases(_ lease: MessageLease, messageIDs: [Int64]) async throws(StoreError) -> [Int64] {
        let open = try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("SELECT status FROM messages WHERE id = ?1")
                var open: [Int64] = []
                for id in Set(messageIDs).sorted() {
                    row.reset()
                    try row.bind(.int(id))
                    if try row.step(), row.int(0) == 1 || row.int(0) == 2 { open.append(id) }
                }
                row.reset()
                return open
            }
        }
        return leases.renew(open, lease)
    }

    public func releaseLeases(owner: String, messageIDs: [Int64]) async throws(StoreError) {
        leases.release(messageIDs, owner: owner)
    }

    public func nextScheduledSendTime(after nowMS: Int64) async throws(StoreError) -> Int64? {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("SELECT MIN(send_at_ms) FROM messages WHERE status IN (1, 2) AND status = 1 AND send_at_ms > ?1")
                try row.bind(.int(nowMS))
                defer { row.reset() }
                guard try row.step(), !row.isNull(0) else { return nil }
                return row.int(0)
            }
        }
    }

    public func startSending(messageID: Int64, lease: MessageLease?) async throws(StoreError) -> Bool {
        // A message cut into batches is sent batch by batch, never whole again.
        if batches.isCut(messageID) { return false }
        let leases = leases
        return try await writer.write { connection throws(StoreError) in
            if let lease, !leases.take(messageID, lease, orTakeOver: true) { return false }
            return try sql { () throws(SQLiteError) in
                try connection.statement("UPDATE messages SET status = 2 WHERE id = ?1 AND status IN (1, 2)")
                    .bind(.int(messageID)).run()
                return connection.changes > 0
            }
        }
    }

    public func knownDevices(applicationID: Int64, hwids asked: [String]) async throws(StoreError) -> [String] {
        // Each hwid once (by its bytes), so that one asked twice is not found twice.
        var seen = Set<[UInt8]>()
        let hwids = asked.count < 2 ? asked : asked.filter { seen.insert(Array($0.utf8)).inserted }
        return try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                // One statement per 16 hwids (unused places bound to NULL, which matches nothing):
                // one prepared text whatever the count, one walk instead of a lookup per hwid.
                let width = 16
                let row = try connection.statement(SQLiteStore.knownDevicesQuery)
                var known: [String] = []
                var start = 0
                while start < hwids.count {
                    let chunk = hwids[start..<min(start + width, hwids.count)]
                    var values: [SQLValue] = [.int(applicationID)]
                    values.reserveCapacity(width + 1)
                    for hwid in chunk { values.append(.text(hwid)) }
                    while values.count <= width { values.append(.null) }
                    row.reset()
                    try row.bind(values)
                    while try row.step() { known.append(row.text(0)) }
                    start += width
                }
                row.reset()
                return known
            }
        }
    }

    private static let knownDevicesQuery =
        "SELECT hwid FROM devices WHERE app_id = ?1 AND hwid IN (" + (2...17).map { "?\($0)" }.joined(separator: ", ") + ")"

    public func tokenlessDevices(applicationID: Int64, hwids asked: [String]) async throws(StoreError) -> [String] {
        var seen = Set<[UInt8]>()
        let hwids = asked.filter { seen.insert(Array($0.utf8)).inserted }
        return try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                // One primary-key lookup per hwid: called only for devices the cache does not hold.
                let row = try connection.statement("SELECT 1 FROM devices WHERE app_id = ?1 AND hwid = ?2 AND push_token = ''")
                var tokenless: [String] = []
                for hwid in hwids {
                    row.reset()
                    try row.bind([.int(applicationID), .text(hwid)])
                    if try row.step() { tokenless.append(hwid) }
                }
                row.reset()
                return tokenless
            }
        }
    }

    public func tapsPerMinute(messageID: Int64, latest: Int) async throws(StoreError) -> [TapMinuteRecord] {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("""
                    SELECT created_at / 60 * 60 AS minute, COUNT(*) FROM taps WHERE message_id = ?1 AND kind <> 1
                    GROUP BY minute ORDER BY minute DESC LIMIT ?2
                    """)
                try row.bind(.int(messageID), .int(Int64(max(0, latest))))
                var minutes: [TapMinuteRecord] = []
                while try row.step() { minutes.append(TapMinuteRecord(minute: row.int(0), taps: UInt64(clamping: row.int(1)))) }
                row.reset()
                return minutes.reversed()
            }
        }
    }

    public func recordAction(_ action: ActionRecord) async throws(StoreError) -> Bool {
        let now = Int64(Date().timeIntervalSince1970)
        return try await writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                try connection.statement("""
                    INSERT INTO taps (message_id, hwid, kind, button_id, text_input, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    ON CONFLICT DO NOTHING
                    """)
                    .bind(.int(action.messageID), .text(action.hwid), .int(action.kind), .int(Int64(action.buttonID)),
                          .text(action.textInput), .int(now))
                    .run()
                return connection.changes > 0
            }
        }
    }

    public func statistics(messageID: Int64) async throws(StoreError) -> MessageStatisticsRecord {
        try read(snapshot: true) { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                var stats = MessageStatisticsRecord()
                let counters = try connection.statement("SELECT targeted, sent, failed, invalid_tokens FROM messages WHERE id = ?1")
                try counters.bind(.int(messageID))
                if try counters.step() {
                    stats.targeted = UInt64(clamping: counters.int(0))
                    stats.sent = UInt64(clamping: counters.int(1))
                    stats.failed = UInt64(clamping: counters.int(2))
                    stats.invalidTokens = UInt64(clamping: counters.int(3))
                }
                counters.reset()
                let failures = try connection.statement("SELECT reason, count FROM message_failures WHERE message_id = ?1 ORDER BY reason")
                try failures.bind(.int(messageID))
                while try failures.step() { stats.failures.append((failures.text(0), UInt64(clamping: failures.int(1)))) }
                failures.reset()
                let taps = try connection.statement("""
                    SELECT kind, button_id, COUNT(*) FROM taps WHERE message_id = ?1 GROUP BY kind, button_id
                    """)
                try taps.bind(.int(messageID))
                while try taps.step() {
                    if taps.int(0) == 1 {
                        stats.opened += UInt64(clamping: taps.int(2))
                    } else {
                        stats.taps[UInt32(truncatingIfNeeded: taps.int(1)), default: 0] += UInt64(clamping: taps.int(2))
                    }
                }
                taps.reset()
                // The row's, when it counts one platform (`RowPlatforms`), else the table's.
                let platforms = try connection.statement("""
                    SELECT device_type, targeted, sent, failed, invalid_tokens FROM message_platforms WHERE message_id = ?1
                    UNION ALL
                    SELECT platform_device_type, targeted, sent, failed, invalid_tokens FROM messages
                    WHERE id = ?1 AND platform_device_type >= 0
                    ORDER BY 1
                    """)
                try platforms.bind(.int(messageID))
                while try platforms.step() {
                    stats.platforms.append(PlatformCountRecord(
                        deviceType: Int32(truncatingIfNeeded: platforms.int(0)), targeted: UInt64(clamping: platforms.int(1)),
                        sent: UInt64(clamping: platforms.int(2)), failed: UInt64(clamping: platforms.int(3)),
                        invalidTokens: UInt64(clamping: platforms.int(4))))
                }
                platforms.reset()
                return stats
            }
        }
    }
}
