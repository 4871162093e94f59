import Foundation

/// The fan-out on SQLite: selecting targets by keyset pagination and writing attempt records.
extension SQLiteStore {
    /// Delivery states in `deliveries.state`.
    enum DeliveryState: Int64 {
        case handedOver = 0, sent = 1, failed = 2, retryPending = 3, replaced = 4
    }

    /// How much of the database file a reader that selects targets maps.
    static let targetsMmapBytes = 1 << 30

    public func targets(applicationID: Int64, _ targeting: TargetingRecord, afterHWID: String?, limit: Int) throws(StoreError) -> [TargetDevice] {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                // A fan-out reads every matching device row once: mapped pages save a copy and a
                // pread(2) per page (a no-op after the first time on a pooled connection).
                try connection.statement("PRAGMA mmap_size = \(SQLiteStore.targetsMmapBytes)").run()
                return try SQLiteStore.targets(applicationID: applicationID, targeting, afterHWID: afterHWID, limit: limit,
                                               on: connection)
            }
        }
    }

    public func firstTargets(of messages: [MessageRecord], limit: Int) throws(StoreError) -> [[TargetDevice]] {
        // One read transaction for all: each costs tens of microseconds while the writer commits
        // hundreds of times a second, more than a small message's query itself.
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                try connection.statement("PRAGMA mmap_size = \(SQLiteStore.targetsMmapBytes)").run()
                var all: [[TargetDevice]] = []
                all.reserveCapacity(messages.count)
                for message in messages {
                    all.append(try SQLiteStore.targets(applicationID: message.applicationID, message.targeting, afterHWID: nil,
                                                       limit: limit, on: connection))
                }
                return all
            }
        }
    }

    private static func targets(applicationID: Int64, _ targeting: TargetingRecord, afterHWID: String?, limit: Int,
                                on connection: SQLiteConnection) throws(SQLiteError) -> [TargetDevice] {
        let (clause, values) = SQLiteStore.targetingClause(targeting)
        // With explicit hwids, `+` keeps the cursor's range off the primary key, so that SQLite
        // looks up each named device (in hwid order, so ORDER BY costs nothing) instead of
        // walking every device of the application after the cursor and filtering: a message to
        // 10 devices of an application with a million used to read a million rows.
        let cursorTerm = targeting.hwids.isEmpty ? "hwid > ?2" : "+hwid > ?2"
        let query = """
            SELECT hwid, push_token, language, badge FROM devices
            WHERE app_id = ?1 AND \(cursorTerm) AND push_token <> '' AND push_token <> dead_token\(clause)
            ORDER BY hwid LIMIT ?3
            """
        let row = try connection.statement(query)
        try row.bind([.int(applicationID), .text(afterHWID ?? ""), .int(Int64(limit))] + values)
        defer { row.reset() }
        var targets: [TargetDevice] = []
        targets.reserveCapacity(min(limit, 1024))
        while try row.step() {
            targets.append(TargetDevice(hwid: row.text(0), pushToken: row.text(1), language: row.text(2), badge: row.int(3)))
        }
        return targets
    }

    /// The SQL that narrows `devices` to the targeting, with its values bound from `?4` on. The
    /// text depends only on the shape of the targeting (how many values of what), so the prepared
    /// statement is reused batch after batch.
    static func targetingClause(_ targeting: TargetingRecord) -> (String, [SQLValue]) {
        var clause = ""
        var values: [SQLValue] = []
        func placeholders(_ items: [SQLValue]) -> String {
            var names: [String] = []
            for item in items {
                values.append(item)
                names.append("?\(values.count + 3)")
            }
            return names.joined(separator: ", ")
        }
        func next(_ value: SQLValue) -> String { placeholders([value]) }
        if !targeting.hwids.isEmpty { clause += " AND hwid IN (\(placeholders(targeting.hwids.map(SQLValue.text))))" }
        if !targeting.userIDs.isEmpty { clause += " AND user_id IN (\(placeholders(targeting.userIDs.map(SQLValue.text))))" }
        if !targeting.platforms.isEmpty {
            clause += " AND device_type IN (\(placeholders(targeting.platforms.map { SQLValue.int(Int64($0)) })))"
        }
        for condition in targeting.conditions {
            // The tag row is found by its primary key (app_id, hwid, name): one lookup per device.
            let name = next(.text(condition.tag))
            var tests: [String] = []
            switch condition.op {
            case .eq, .in:
                for value in condition.values {
                    switch value {
                    case .string(let s):
                        let p = next(.text(s))
                        tests.append("(t.kind = 1 AND t.text_value = \(p)) OR (t.kind = 4 AND EXISTS (SELECT 1 FROM json_each(t.text_value) WHERE json_each.value = \(p)))")
                    case .int(let i): tests.append("(t.kind IN (2, 5) AND t.int_value = \(next(.int(i))))")
                    case .bool(let b): tests.append("(t.kind = 3 AND t.int_value = \(next(.int(b ? 1 : 0))))")
                    }
                }
            case .gte, .lte, .between:
                let bounds = condition.values.compactMap { value -> Int64? in if case .int(let i) = value { i } else { nil } }
                if condition.op == .gte, let low = bounds.first {
                    tests.append("t.kind IN (2, 5) AND t.int_value >= \(next(.int(low)))")
                } else if condition.op == .lte, let high = bounds.first {
                    tests.append("t.kind IN (2, 5) AND t.int_value <= \(next(.int(high)))")
                } else if bounds.count == 2 {
                    tests.append("t.kind IN (2, 5) AND t.int_value BETWEEN \(next(.int(bounds[0]))) AND \(next(.int(bounds[1])))")
                }
            }
            if tests.isEmpty { tests = ["0"] }  // a condition that cannot hold selects nothing
            clause += " AND EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = devices.app_id AND t.hwid = devices.hwid AND t.name = \(name) AND (\(tests.joined(separator: " OR "))))"
        }
        return (clause, values)
    }

    public func target(applicationID: Int64, hwid: String) throws(StoreError) -> TargetDevice? {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("SELECT hwid, push_token, language, badge FROM devices WHERE app_id = ?1 AND hwid = ?2")
                try row.bind(.int(applicationID), .text(hwid))
                defer { row.reset() }
                guard try row.step() else { return nil }
                return TargetDevice(hwid: row.text(0), pushToken: row.text(1), language: row.text(2), badge: row.int(3))
            }
        }
    }

    public func openDeliveries(messageID: Int64) throws(StoreError) -> [OpenDeliveryRecord] {
        try read(snapshot: true) { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                // The batch handed over last, if its outcomes were never recorded, then the retries.
                let row = try connection.statement("""
                    SELECT d.id, d.hwid, d.attempt, d.state FROM messages m JOIN deliveries d
                        ON d.id BETWEEN m.open_from AND m.open_to AND d.message_id = m.id AND d.state = 0
                    WHERE m.id = ?1
                    UNION ALL
                    SELECT id, hwid, attempt, state FROM deliveries WHERE message_id = ?1 AND state = 3
                    ORDER BY 1
                    """)
                try row.bind(.int(messageID))
                defer { row.reset() }
                var open: [OpenDeliveryRecord] = []
                while try row.step() {
                    open.append(OpenDeliveryRecord(deliveryID: UInt64(row.int(0)), hwid: row.text(1), attempt: Int(row.int(2)),
                                                   handedOver: row.int(3) == DeliveryState.handedOver.rawValue))
                }
                return open
            }
        }
    }

    public func recordFanOutStep(_ step: FanOutStep) async throws(StoreError) -> [UInt64] {
        try await writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in try SQLiteStore.apply(step, on: connection) }
        }
    }

    public func recordFanOutSteps(_ steps: [FanOutStep]) async throws(StoreError) -> [[UInt64]] {
        // One writer job (one savepoint) for all of them.
        try await writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                var ids: [[UInt64]] = []
                ids.reserveCapacity(steps.count)
                for step in steps { ids.append(try SQLiteStore.apply(step, on: connection)) }
                return ids
            }
        }
    }

    /// Delivery records per multi-row INSERT: one statement per 256 devices instead of one per
    /// device (a fan-out to a million devices writes a million records).
    static let rowsPerInsert = 256

    /// The multi-row INSERT of `count` records (each count's text is prepared once and cached:
    /// a full chunk of a large fan-out, or the few records of each small message).
    private static func multiRowInsert(_ count: Int) -> String {
        count < smallMultiRowInserts.count ? smallMultiRowInserts[count] : multiRowInsertText(count)
    }

    private static func multiRowInsertText(_ count: Int) -> String {
        "INSERT INTO deliveries (message_id, hwid, attempt, state) VALUES "
            + (0..<count).map { "(?1, ?\(2 * $0 + 2), ?\(2 * $0 + 3), 0)" }.joined(separator: ", ")
    }

    /// The texts for 0…`multiRowSmallLimit` records, built once.
    private static let smallMultiRowInserts = (0...multiRowSmallLimit).map(multiRowInsertText)

    /// Small chunks up to this many records go in one statement too; larger partial chunks
    /// (the last of a large fan-out) row by row, so that the cache holds few statement texts.
    static let multiRowSmallLimit = 128

    /// Inserts the records with one statement and appends their ids. Without an
    /// explicit id, each row gets one more than the largest id in the table, so the ids of one
    /// statement are consecutive and end at the last insert rowid; the first is checked anyway.
    private static func insertRows(_ rows: ArraySlice<NewDeliveryRecord>, messageID: Int64, on connection: SQLiteConnection,
                                   into ids: inout [UInt64]) throws(SQLiteError) {
        var values: [SQLValue] = [.int(messageID)]
        values.reserveCapacity(2 * rows.count + 1)
        for row in rows {
            values.append(.text(row.hwid))
            values.append(.int(Int64(row.attempt)))
        }
        try connection.statement(multiRowInsert(rows.count)).bind(values).run()
        let last = connection.lastInsertRowID
        let first = last - Int64(rows.count) + 1
        let check = try connection.statement("SELECT hwid FROM deliveries WHERE id = ?1")
        try check.bind(.int(first))
        let found = try check.step() ? check.text(0) : nil
        check.reset()
        guard connection.changes == rows.count, found == rows.first?.hwid else {
            throw SQLiteError(code: 1, message: "delivery ids of a multi-row insert are not consecutive", context: "insert deliveries")
        }
        for offset in 0..<Int64(rows.count) { ids.append(UInt64(first + offset)) }
    }

    private static func apply(_ step: FanOutStep, on connection: SQLiteConnection) throws(SQLiteError) -> [UInt64] {
        if step.startsSending {
            try connection.statement("UPDATE messages SET status = 2 WHERE id = ?1 AND status IN (1, 2)").bind(.int(step.messageID)).run()
            if connection.changes == 0 { return [] }
        }
        var sent: Int64 = 0, failed: Int64 = 0, invalid: Int64 = 0
        var failuresByReason: [String: Int64] = [:]
        let setState = try connection.statement("UPDATE deliveries SET state = ?2, reason = ?3 WHERE id = ?1")
        for result in step.results {
            let id = Int64(result.deliveryID)
            switch result.result {
            case .sent:
                // Left at state 0: moving the open range past it records it as sent.
                sent += 1
            case .failed(let reason, let invalidToken, let deadToken):
                failed += 1
                if invalidToken { invalid += 1 }
                failuresByReason[reason, default: 0] += 1
                try setState.bind(.int(id), .int(DeliveryState.failed.rawValue), .text(reason)).run()
                if let deadToken {
                    try connection.statement("""
                        UPDATE devices SET dead_token = ?3 WHERE app_id = ?1 AND hwid = ?2 AND push_token = ?3
                        """)
                        .bind(.int(step.applicationID), .text(result.hwid), .text(deadToken)).run()
                }
            case .retryPending(let reason):
                try setState.bind(.int(id), .int(DeliveryState.retryPending.rawValue), .text(reason)).run()
            }
        }
        for (reason, count) in failuresByReason {
            try connection.statement("""
                INSERT INTO message_failures (message_id, reason, count) VALUES (?1, ?2, ?3)
                ON CONFLICT (message_id, reason) DO UPDATE SET count = count + excluded.count
                """)
                .bind(.int(step.messageID), .text(reason), .int(count)).run()
        }
        var ids: [UInt64] = []
        ids.reserveCapacity(step.handOver.count)
        let insert = try connection.statement("INSERT INTO deliveries (message_id, hwid, attempt, state) VALUES (?1, ?2, ?3, 0)")
        var index = 0
        while index < step.handOver.count {
            let chunk = step.handOver[index..<min(index + rowsPerInsert, step.handOver.count)]
            if chunk.count == rowsPerInsert || (chunk.count > 1 && chunk.count <= multiRowSmallLimit),
               chunk.allSatisfy({ $0.replaces == nil }) {
                try insertRows(chunk, messageID: step.messageID, on: connection, into: &ids)
            } else {
                for delivery in chunk {
                    if let replaced = delivery.replaces {
                        try setState.bind(.int(Int64(replaced)), .int(DeliveryState.replaced.rawValue), .text("")).run()
                    }
                    try insert.bind(.int(step.messageID), .text(delivery.hwid), .int(Int64(delivery.attempt))).run()
                    ids.append(UInt64(connection.lastInsertRowID))
                }
            }
            index += chunk.count
        }
        for (hwid, badge) in step.badges {
            try connection.statement("UPDATE devices SET badge = ?3 WHERE app_id = ?1 AND hwid = ?2")
                .bind(.int(step.applicationID), .text(hwid), .int(badge)).run()
        }
        // The outcomes recorded here close the older records: the open range is now this batch's,
        // from the batch still with the gateway if there is one.
        let openFrom = step.openSince.map { Int64($0) } ?? ids.first.map { Int64($0) } ?? 0
        let openTo = ids.last.map { Int64($0) } ?? (step.openSince == nil ? -1 : Int64.max)
        try connection.statement("""
            UPDATE messages SET sent = sent + ?2, failed = failed + ?3, invalid_tokens = invalid_tokens + ?4,
                targeted = targeted + ?5, cursor = COALESCE(?6, cursor), status = CASE WHEN ?7 THEN 3 ELSE status END,
                open_from = ?8, open_to = ?9
            WHERE id = ?1
            """)
            .bind(.int(step.messageID), .int(sent), .int(failed), .int(invalid), .int(Int64(step.targetedIncrement)),
                  step.cursor.map(SQLValue.text) ?? .null, .int(step.finish ? 1 : 0), .int(openFrom), .int(openTo))
            .run()
        return ids
    }
}
