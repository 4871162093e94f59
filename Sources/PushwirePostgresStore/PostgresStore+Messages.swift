import Foundation
import PushwireStore

/// Messages, taps and statistics on PostgreSQL (the outbox and deliveries are in +Deliveries).
extension PostgresStore {
    static let messageColumns = "id, app_id, code, transaction_id, status, send_at_ms, category_id, targeting, spec, cursor"

    static func readMessage(_ rows: PGResult, _ row: Int) -> MessageRecord? {
        guard let status = MessageStatusRecord(rawValue: rows.int(row, 4)),
              let targeting = TargetingJSON.decode(rows.text(row, 7))
        else { return nil }
        return MessageRecord(
            id: rows.int(row, 0), applicationID: rows.int(row, 1), code: rows.text(row, 2), transactionID: rows.text(row, 3),
            status: status, sendAtMS: rows.int(row, 5), categoryID: UInt32(truncatingIfNeeded: rows.int(row, 6)),
            targeting: targeting, spec: rows.text(row, 8), cursor: rows.optionalText(row, 9))
    }

    static func messages(_ connection: PGConnection, where clause: String, _ values: [String?]) throws(StoreError) -> [MessageRecord] {
        try messages(connection, query: "SELECT \(messageColumns) FROM messages WHERE \(clause)", values)
    }

    /// The messages `sql` selects (its columns `messageColumns`).
    static func messages(_ connection: PGConnection, query sql: String, _ values: [String?]) throws(StoreError) -> [MessageRecord] {
        let rows = try pg { () throws(PGError) in try connection.query(sql, values) }
        return (0..<rows.count).compactMap { readMessage(rows, $0) }
    }

    public func createMessages(_ messages: [NewMessageRecord]) async throws(StoreError) -> [MessageRecord] {
        let result: Result<[MessageRecord], StoreError> = await withCheckedContinuation { continuation in
            createMessages(messages) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    public func createMessages(_ messages: [NewMessageRecord],
                               completion: @escaping @Sendable (Result<[MessageRecord], StoreError>) -> Void) {
        // Encoded on the caller's thread: the writer's time bounds every write. The writer joins
        // adjacent calls into one INSERT (`MessageInsertGroup`, which keeps transaction ids'
        // promise across servers).
        let job = MessageInsertJob(messages: messages, targetings: messages.map { TargetingJSON.encode($0.targeting) },
                                   createdAt: Int64(Date().timeIntervalSince1970), completion: completion)
        submitWrite(job)
    }

    public func message(applicationID: Int64, code: String) async throws(StoreError) -> MessageRecord? {
        try await read { connection throws(StoreError) in
            try PostgresStore.messages(connection, where: "code = $1 AND app_id = $2", [code, String(applicationID)]).first
        }
    }

    public func message(id: Int64) async throws(StoreError) -> MessageRecord? {
        try await read { connection throws(StoreError) in
            try PostgresStore.messages(connection, where: "id = $1", [String(id)]).first
        }
    }

    public func messages(ids: [Int64]) async throws(StoreError) -> [Int64: MessageRecord] {
        try await read { connection throws(StoreError) in
            var found: [Int64: MessageRecord] = [:]
            for message in try PostgresStore.messages(connection, where: "id = ANY($1::bigint[])", [PGText.intArray(ids)]) {
                found[message.id] = message
            }
            return found
        }
    }

    public func listMessages(applicationID: Int64, beforeID: Int64?, limit: Int) async throws(StoreError) -> [MessageSummaryRecord] {
        try await read { connection throws(StoreError) in
            // One statement, so one snapshot; walks `messages_by_app` backwards from the cursor.
            let rows = try pg { () throws(PGError) in
                try connection.query("""
                    SELECT id, code, status, send_at_ms, category_id, targeted, sent, failed FROM messages
                    WHERE app_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3
                    """, [String(applicationID), String(beforeID ?? Int64.max), String(max(0, limit))])
            }
            return (0..<rows.count).compactMap { row -> MessageSummaryRecord? in
                guard let status = MessageStatusRecord(rawValue: rows.int(row, 2)) else { return nil }
                return MessageSummaryRecord(
                    id: rows.int(row, 0), code: rows.text(row, 1), status: status, sendAtMS: rows.int(row, 3),
                    categoryID: UInt32(truncatingIfNeeded: rows.int(row, 4)), targeted: UInt64(clamping: rows.int(row, 5)),
                    sent: UInt64(clamping: rows.int(row, 6)), failed: UInt64(clamping: rows.int(row, 7)))
            }
        }
    }

    public func cancelMessage(applicationID: Int64, code: String) async throws(StoreError) -> MessageStatusRecord? {
        try await write { connection throws(StoreError) -> MessageStatusRecord? in
            guard let message = try PostgresStore.messages(connection, where: "code = $1 AND app_id = $2 FOR UPDATE",
                                                           [code, String(applicationID)]).first else { return nil }
            if message.status == .scheduled {
                _ = try pg { () throws(PGError) in
                    try connection.query(PostgresOutbox.updatingStatus("UPDATE messages SET status = 4 WHERE id = $1 RETURNING id, status, send_at_ms"),
                                         [String(message.id)])
                }
            }
            return message.status
        }
    }

    public func dueMessages(nowMS: Int64, limit: Int) async throws(StoreError) -> [MessageRecord] {
        try await read { connection throws(StoreError) in
            let ids = try PostgresStore.dueMessageIDs(connection, nowMS: nowMS, limit: limit, includeSending: true)
            var byID: [Int64: MessageRecord] = [:]
            for message in try PostgresStore.messages(connection, where: "id = ANY($1::bigint[])", [PGText.intArray(ids)]) {
                byID[message.id] = message
            }
            return ids.compactMap { byID[$0] }
        }
    }

    public func dueMessageIDs(nowMS: Int64, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64] {
        try await read { connection throws(StoreError) in
            try PostgresStore.dueMessageIDs(connection, nowMS: nowMS, limit: limit, includeSending: includeSending)
        }
    }

    /// Due messages, oldest first, in one walk of the outbox (`dueWalkSQL`).
    private static func dueMessageIDs(_ connection: PGConnection, nowMS: Int64, limit: Int,
                                      includeSending: Bool) throws(StoreError) -> [Int64] {
        try pg { () throws(PGError) in
            let rows = try connection.query(dueWalkSQL, [includeSending ? "t" : "f", String(nowMS), String(limit)])
            return (0..<rows.count).map { rows.int($0, 0) }
        }
    }

    /// The due messages ($3 at most) by send time, then id, each tested in its message row
    /// (scheduled, or with $1 also sending; not cut into batches) by the outbox's walk
    /// (`PostgresOutbox.dueWalk`). The status is no longer in the outbox's key (`PostgresSchema`,
    /// version 10), so one walk serves both, passing over the rows that are not wanted: those
    /// sending when $1 is false, which the pipeline holds in memory.
    static let dueWalkSQL = PostgresOutbox.dueWalk("(d.status = 1 OR ($1::boolean AND d.status = 2)) AND d.batches = 0", limit: "$3")

    public func nextScheduledSendTime(after nowMS: Int64) async throws(StoreError) -> Int64? {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                // The outbox's first row after $1 whose message is scheduled (the test a
                // subquery, as in `PostgresOutbox.dueWalk`).
                try connection.query("""
                    SELECT o.send_at_ms FROM message_outbox o
                    WHERE o.send_at_ms > $1 AND (SELECT m.status = 1 FROM messages m WHERE m.id = o.message_id)
                    ORDER BY o.send_at_ms, o.message_id LIMIT 1
                    """, [String(nowMS)])
            }
            return rows.count > 0 && !rows.isNull(0, 0) ? rows.int(0, 0) : nil
        }
    }

    public func startSending(messageID: Int64, lease: MessageLease?) async throws(StoreError) -> Bool {
        try await write { connection throws(StoreError) in
            try pg { () throws(PGError) in
                try connection.query(PostgresOutbox.updatingStatus("""
                    UPDATE messages SET status = 2, lease_owner = COALESCE($2, lease_owner),
                        lease_until_ms = CASE WHEN $2::text IS NULL THEN lease_until_ms ELSE $4 END
                    WHERE id = $1 AND status IN (1, 2) AND batches = 0
                        AND ($2::text IS NULL OR lease_owner IS NULL OR lease_owner = $2 OR lease_until_ms < $3)
                    RETURNING id, status, send_at_ms
                    """), [String(messageID), lease?.owner, String(lease?.nowMS ?? 0), String(lease?.untilMS ?? 0)]).count > 0
            }
        }
    }

    public func claimDueMessages(_ lease: MessageLease, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64] {
        try await write(background: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                let rows = try connection.queryPlannedNow(includeSending ? PostgresStore.claimDueSQL : PostgresStore.claimScheduledSQL, [
                    lease.owner, String(lease.nowMS), String(lease.untilMS), String(limit),
                ])
                // RETURNING comes in no particular order.
                return (0..<rows.count).map { (sendAt: rows.int($0, 0), id: rows.int($0, 1)) }
                    .sorted { ($0.sendAt, $0.id) < ($1.sendAt, $1.id) }.map(\.id)
            }
        }
    }

    /// A claim of due messages in one walk of the outbox, `walk` its condition on the message row
    /// `d` (whose lease it must find free or expired at $2, or $1's): at most $4 messages not cut
    /// into batches, taken under $1 until $3. The walk (`w`, `PostgresOutbox.dueWalk`) tests
    /// `walk` so that it passes over rows that live leases hold; then each message row it found
    /// is locked — SKIP LOCKED: one another server's transaction holds (its claim, its step) is
    /// passed over rather than waited for — and `walk` tested again on the locked row, which a
    /// claim committed meanwhile may have changed. Planned at each call (`queryPlannedNow`).
    private static func claimSQL(_ walk: String) -> String {
        """
        UPDATE messages m SET lease_owner = $1, lease_until_ms = $3
        FROM (SELECT d.id FROM (\(PostgresOutbox.dueWalk(walk, limit: "$4"))) w
              JOIN messages d ON d.id = w.message_id
              WHERE \(walk) FOR UPDATE OF d SKIP LOCKED) c
        WHERE m.id = c.id RETURNING m.send_at_ms, m.id
        """
    }

    /// Due messages scheduled or sending (`claimSQL`), oldest first: a lease free or expired, or
    /// for a sending one also $1's (a fan-out of this server's that stopped on a store error).
    /// The scheduler asks for these once an idle poll.
    static let claimDueSQL = claimSQL("""
        d.status IN (1, 2) AND d.batches = 0 AND (d.lease_owner IS NULL OR d.lease_until_ms < $2 OR (d.status = 2 AND d.lease_owner = $1))
        """)
    /// Scheduled messages whose time has come (`claimSQL`), oldest first: a lease free or
    /// expired. One under $1's live lease was created here and is in its scheduler's memory
    /// (`NewMessageRecord.lease`): taking it again made every look under a stream of
    /// CreateMessage re-claim hundreds of them and look again at once.
    static let claimScheduledSQL = claimSQL("d.status = 1 AND d.batches = 0 AND (d.lease_owner IS NULL OR d.lease_until_ms < $2)")

    public func renewLeases(_ lease: MessageLease, messageIDs: [Int64]) async throws(StoreError) -> [Int64] {
        if messageIDs.isEmpty { return [] }
        return try await write(background: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                let rows = try connection.query("""
                    UPDATE messages SET lease_until_ms = $3
                    WHERE id = ANY($2::bigint[]) AND lease_owner = $1 AND status IN (1, 2) RETURNING id
                    """, [lease.owner, PGText.intArray(messageIDs), String(lease.untilMS)])
                return (0..<rows.count).map { rows.int($0, 0) }.sorted()
            }
        }
    }

    public func releaseLeases(owner: String, messageIDs: [Int64]) async throws(StoreError) {
        if messageIDs.isEmpty { return }
        try await write(background: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                _ = try connection.query("""
                    UPDATE messages SET lease_owner = NULL, lease_until_ms = 0 WHERE id = ANY($2::bigint[]) AND lease_owner = $1
                    """, [owner, PGText.intArray(messageIDs)])
            }
        }
    }

    public func knownDevices(applicationID: Int64, hwids: [String]) async throws(StoreError) -> [String] {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("SELECT hwid FROM devices WHERE app_id = $1 AND hwid = ANY($2::text[])",
                                     [String(applicationID), PGText.textArray(hwids)])
            }
            return (0..<rows.count).map { rows.text($0, 0) }
        }
    }

    public func tokenlessDevices(applicationID: Int64, hwids: [String]) async throws(StoreError) -> [String] {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("SELECT hwid FROM devices WHERE app_id = $1 AND hwid = ANY($2::text[]) AND push_token = ''",
                                     [String(applicationID), PGText.textArray(hwids)])
            }
            return (0..<rows.count).map { rows.text($0, 0) }
        }
    }

    public func tapsPerMinute(messageID: Int64, latest: Int) async throws(StoreError) -> [TapMinuteRecord] {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("""
                    SELECT created_at / 60 * 60 AS minute, COUNT(*) FROM taps WHERE message_id = $1 AND kind <> 1
                    GROUP BY minute ORDER BY minute DESC LIMIT $2
                    """, [String(messageID), String(max(0, latest))])
            }
            return (0..<rows.count).reversed().map { TapMinuteRecord(minute: rows.int($0, 0), taps: UInt64(clamping: rows.int($0, 1))) }
        }
    }

    public func recordAction(_ action: ActionRecord) async throws(StoreError) -> Bool {
        let now = Int64(Date().timeIntervalSince1970)
        return try await write { connection throws(StoreError) in
            try pg { () throws(PGError) in
                try connection.query("""
                    INSERT INTO taps (message_id, hwid, kind, button_id, text_input, created_at) VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT DO NOTHING
                    """, [String(action.messageID), action.hwid, String(action.kind), String(action.buttonID), action.textInput,
                          String(now)]).changes > 0
            }
        }
    }

    public func statistics(messageID: Int64) async throws(StoreError) -> MessageStatisticsRecord {
        try await read(snapshot: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                var stats = MessageStatisticsRecord()
                let id = String(messageID)
                let counters = try connection.query("SELECT targeted, sent, failed, invalid_tokens FROM messages WHERE id = $1", [id])
                if counters.count > 0 {
                    stats.targeted = UInt64(clamping: counters.int(0, 0))
                    stats.sent = UInt64(clamping: counters.int(0, 1))
                    stats.failed = UInt64(clamping: counters.int(0, 2))
                    stats.invalidTokens = UInt64(clamping: counters.int(0, 3))
                }
                let failures = try connection.query("SELECT reason, count FROM message_failures WHERE message_id = $1 ORDER BY reason", [id])
                for row in 0..<failures.count {
                    stats.failures.append((failures.text(row, 0), UInt64(clamping: failures.int(row, 1))))
                }
                let taps = try connection.query("SELECT kind, button_id, count(*) FROM taps WHERE message_id = $1 GROUP BY kind, button_id", [id])
                for row in 0..<taps.count {
                    if taps.int(row, 0) == 1 {
                        stats.opened += UInt64(clamping: taps.int(row, 2))
                    } else {
                        stats.taps[UInt32(truncatingIfNeeded: taps.int(row, 1)), default: 0] += UInt64(clamping: taps.int(row, 2))
                    }
                }
                // A platform's counters are the row's (when it counts that one) plus its
                // `message_platforms` row's (`PostgresSchema` version 9).
                let platforms = try connection.query("""
                    SELECT device_type, sum(targeted), sum(sent), sum(failed), sum(invalid_tokens) FROM (
                        SELECT device_type, targeted, sent, failed, invalid_tokens FROM message_platforms WHERE message_id = $1
                        UNION ALL
                        SELECT platform_device_type, platform_targeted, platform_sent, platform_failed, platform_invalid_tokens
                        FROM messages WHERE id = $1 AND platform_device_type IS NOT NULL) p
                    GROUP BY device_type ORDER BY device_type
                    """, [id])
                for row in 0..<platforms.count {
                    stats.platforms.append(PlatformCountRecord(
                        deviceType: Int32(truncatingIfNeeded: platforms.int(row, 0)), targeted: UInt64(clamping: platforms.int(row, 1)),
                        sent: UInt64(clamping: platforms.int(row, 2)), failed: UInt64(clamping: platforms.int(row, 3)),
                        invalidTokens: UInt64(clamping: platforms.int(row, 4))))
                }
                return stats
            }
        }
    }
}
