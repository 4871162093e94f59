import PushwireStore

/// Attempt records on PostgreSQL, compactly (schema version 7): the records a fan-out step hands
/// over are one `delivery_steps` row — the message, the batch, the first id, the hwids as one
/// array, the attempts when any is not a first — and a record gets a `deliveries` row of its own
/// only for an outcome that must be remembered per device: failed (with its reason),
/// retry-pending, replaced by its retry. A record without such a row is sent once the open range
/// has moved past it, or still with the gateway (handed over) while inside it.
///
/// Why: one `deliveries` row per device and attempt was most of a large fan-out's cost — each
/// server's one writer connection inserted about 45 k rows/s with their primary-key entries and
/// WAL (docs/journal/2026-12-02-pg-fanout.md); a step of 5,000 is now one row.
///
/// Ids. A step's records have consecutive ids, so a record is its step's first id plus its
/// position: each writer job draws one block of `blockSize` ids per `blockSize` records from
/// the `delivery_blocks` sequence (one `nextval`, not one per record), the ids of block b being
/// `base + b × blockSize …`. `base` (2^40) keeps them above every id of the per-record sequence
/// `deliveries_ids` that schema 6 and before drew from, whose records (one `deliveries` row each,
/// state 0 while handed over) are still read: every reader below takes both forms.
enum DeliverySteps {
    /// The smallest id of a compact record; every older (per-row) record's id is below it.
    static let base: Int64 = 1 << 40
    /// Ids per `delivery_blocks` value: a step's records within one block are one row.
    static let blockSize: Int64 = 1 << 16

    /// One `delivery_steps` row to write: consecutive ids from `firstID`.
    struct Row {
        var messageID: Int64
        var batch: Int?
        var firstID: Int64
        var hwids: [String] = []
        var attempts: [Int64] = []
    }

    /// `count` new ids, ascending, from `ceil(count / blockSize)` blocks.
    static func drawIDs(_ count: Int, on connection: PGConnection) throws(StoreError) -> [Int64] {
        guard count > 0 else { return [] }
        let blocks = (Int64(count) + blockSize - 1) / blockSize
        let rows = try pg { () throws(PGError) in
            try connection.query("SELECT nextval('delivery_blocks') FROM generate_series(1, $1)", [String(blocks)])
        }
        let starts = (0..<rows.count).map { base + rows.int($0, 0) * blockSize }.sorted()
        guard Int64(starts.count) == blocks else { throw .internalError("drew \(starts.count) attempt record blocks of \(blocks)") }
        var ids: [Int64] = []
        ids.reserveCapacity(count)
        for start in starts {
            for offset in 0..<min(blockSize, Int64(count - ids.count)) { ids.append(start + offset) }
        }
        return ids
    }

    /// Appends the records `ids[i]` (hwid, attempt) of one step to `rows`, a new row at each
    /// block boundary.
    static func add(messageID: Int64, batch: Int?, ids: [Int64], _ handOver: [NewDeliveryRecord], to rows: inout [Row]) {
        for (index, id) in ids.enumerated() where index < handOver.count {
            // A row stays within one block, so a row starts at most `blockSize - 1` ids before
            // any id of it (what `handedOverSQL` looks back over). The last row is looked at in
            // place: a copy of it held while appending would copy its arrays on every append.
            let last = rows.count - 1
            if last >= 0, rows[last].messageID == messageID, rows[last].batch == batch,
               rows[last].firstID + Int64(rows[last].hwids.count) == id, (id - base) % blockSize != 0 {
                rows[last].hwids.append(handOver[index].hwid)
                rows[last].attempts.append(Int64(handOver[index].attempt))
            } else {
                rows.append(Row(messageID: messageID, batch: batch, firstID: id, hwids: [handOver[index].hwid],
                                attempts: [Int64(handOver[index].attempt)]))
            }
        }
    }

    /// Writes `rows`: one statement with the arrays as parameters for one row (a large
    /// message's step), else one for all of them, each row's arrays one element of a parameter.
    /// Attempts are stored only when one is not a first attempt.
    static func insert(_ rows: [Row], on connection: PGConnection) throws(StoreError) {
        guard let first = rows.first else { return }
        try pg { () throws(PGError) in
            if rows.count == 1 {
                let attempts = first.attempts.allSatisfy { $0 == 1 } ? .text(nil) : PGBinary.int32Array(first.attempts)
                try connection.query("""
                    INSERT INTO delivery_steps (message_id, first_id, batch, hwids, attempts)
                    VALUES ($1, $2, $3, $4::text[], $5::integer[])
                    """, [.text(String(first.messageID)), .text(String(first.firstID)), .text(first.batch.map { String($0) }),
                          PGBinary.textArray(first.hwids), attempts])
                return
            }
            // Each row's arrays as one literal, cast per row. One array of all the records,
            // grouped back into rows by the database (unnest, GROUP BY, array_agg), took 2.3
            // times as long in PostgreSQL (20 against 8.7 µs a small message under CreateMessage).
            var messages: [Int64] = [], firstIDs: [Int64] = [], batches: [Int64?] = [], hwids: [String] = [], attempts: [String?] = []
            for step in rows {
                messages.append(step.messageID); firstIDs.append(step.firstID); batches.append(step.batch.map { Int64($0) })
                hwids.append(PGText.textArray(step.hwids))
                attempts.append(step.attempts.allSatisfy { $0 == 1 } ? nil : PGText.intArray(step.attempts))
            }
            try connection.query("""
                INSERT INTO delivery_steps (message_id, first_id, batch, hwids, attempts)
                SELECT message_id, first_id, batch, hwids::text[], attempts::integer[]
                FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::text[], $5::text[]) AS r (message_id, first_id, batch, hwids, attempts)
                """, [PGBinary.intArray(messages), PGBinary.intArray(firstIDs), PGBinary.optionalInt32Array(batches),
                      PGBinary.textArray(hwids), PGBinary.optionalTextArray(attempts)])
        }
    }

    /// Gives records outcomes (failed, retry-pending, replaced): a `deliveries` row each,
    /// inserted for a compact record (its hwid and attempt from its step's row: the row of its
    /// message with the greatest first id not above it, each such row read once however many of
    /// its records get outcomes) or updated for an older per-row record. The last outcome given
    /// to a record in the arrays wins. `hwids` are the callers', used only where no stored one is
    /// found (the insert's NOT NULL hwid is checked before a conflict is). Ids that are no record
    /// of the message are left alone, as an UPDATE of rows that do not exist would.
    static func recordOutcomes(messageIDs: [Int64], ids: [Int64], hwids: [String], states: [Int64], reasons: [String],
                               on connection: PGConnection) throws(StoreError) {
        guard !ids.isEmpty else { return }
        _ = try pg { () throws(PGError) in
            try connection.query("""
                WITH u AS (SELECT DISTINCT ON (id) id, message_id, hwid, state, reason
                           FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::integer[], $5::text[])
                               WITH ORDINALITY AS r (message_id, id, hwid, state, reason, n)
                           ORDER BY id, n DESC),
                     steps AS (SELECT DISTINCT s.message_id, s.first_id FROM u CROSS JOIN LATERAL (
                                   SELECT message_id, first_id FROM delivery_steps
                                   WHERE message_id = u.message_id AND first_id <= u.id AND u.id >= \(base)
                                   ORDER BY first_id DESC LIMIT 1) s),
                     records AS (SELECT st.first_id + x.n - 1 AS id, x.hwid, COALESCE(st.attempts[x.n::integer], 1) AS attempt
                                 FROM steps JOIN delivery_steps st USING (message_id, first_id)
                                     CROSS JOIN LATERAL unnest(st.hwids) WITH ORDINALITY AS x (hwid, n))
                INSERT INTO deliveries (id, message_id, hwid, attempt, state, reason)
                SELECT u.id, u.message_id, COALESCE(records.hwid, u.hwid), COALESCE(records.attempt, 1), u.state, u.reason
                FROM u LEFT JOIN records ON records.id = u.id
                WHERE records.id IS NOT NULL OR EXISTS (SELECT 1 FROM deliveries d WHERE d.id = u.id AND d.message_id = u.message_id)
                ON CONFLICT (id) DO UPDATE SET state = excluded.state, reason = excluded.reason
                """, [PGText.intArray(messageIDs), PGText.intArray(ids), PGText.textArray(hwids), PGText.intArray(states),
                      PGText.textArray(reasons)])
        }
    }

    /// Refuses a `stillWithGateway` that is not ids of one earlier step of the message (its batch's)
    /// with no outcome yet: each run of consecutive ids must lie within one of its step rows (or,
    /// for ids of the older form, be rows handed over), and none may have an outcome row.
    static func checkStillWithGateway(_ step: FanOutStep, on connection: PGConnection) throws(StoreError) {
        let ids = step.stillWithGateway
        guard !ids.isEmpty else { return }
        let invalid = StoreError.invalidChange("stillWithGateway of message \(step.messageID) is not the ids of one earlier step")
        guard Set(ids).count == ids.count, ids.allSatisfy({ $0 <= UInt64(Int64.max) }) else { throw invalid }
        let sorted = ids.map { Int64($0) }.sorted()
        if sorted[0] < base {
            // The older form: a row per record, still handed over.
            let rows = try pg { () throws(PGError) in
                try connection.query("SELECT count(*) FROM deliveries WHERE id = ANY($1::bigint[]) AND message_id = $2 AND state = 0",
                                     [PGText.intArray(sorted), String(step.messageID)])
            }
            guard rows.int(0, 0) == Int64(ids.count) else { throw invalid }
            return
        }
        var starts: [Int64] = [], lengths: [Int64] = []
        for id in sorted {
            // Runs break at block boundaries, as rows do (`add`).
            if let start = starts.last, let length = lengths.last, start + length == id, (id - base) % blockSize != 0 {
                lengths[lengths.count - 1] += 1
            } else {
                starts.append(id); lengths.append(1)
            }
        }
        let rows = try pg { () throws(PGError) in
            try connection.query("""
                SELECT (SELECT count(*) FROM unnest($2::bigint[], $3::bigint[]) AS r (first_id, n)
                        CROSS JOIN LATERAL (SELECT first_id, cardinality(hwids) AS records, batch FROM delivery_steps
                                            WHERE message_id = $1 AND first_id <= r.first_id ORDER BY first_id DESC LIMIT 1) s
                        WHERE r.first_id + r.n <= s.first_id + s.records AND s.batch IS NOT DISTINCT FROM $4::integer),
                       EXISTS (SELECT 1 FROM unnest($2::bigint[], $3::bigint[]) AS q (first_id, n)
                               JOIN deliveries d ON d.id BETWEEN q.first_id AND q.first_id + q.n - 1)
                """, [String(step.messageID), PGText.intArray(starts), PGText.intArray(lengths), step.batch.map { String($0) }])
        }
        guard rows.int(0, 0) == Int64(starts.count), rows.text(0, 1) == "f" else { throw invalid }
    }

    /// The records handed over without an outcome within an open range (`$open_from`…`$open_to`,
    /// of the rows aliased `range` in the enclosing query), as (id, hwid, attempt, state 0):
    /// compact ones from the steps' rows, older ones from their own rows. `stepFilter` narrows the
    /// steps (a batch's), `rowFilter` the older rows.
    static func handedOverSQL(message: String, range: String, stepFilter: String, rowFilter: String) -> String {
        """
        SELECT d.id, d.hwid, d.attempt, d.state FROM deliveries d
        WHERE d.id BETWEEN \(range).open_from AND \(range).open_to AND d.id < \(base) AND d.message_id = \(message) AND d.state = 0\(rowFilter)
        UNION ALL
        SELECT r.id, r.hwid, r.attempt, 0 FROM delivery_steps s
            CROSS JOIN LATERAL (SELECT s.first_id + x.n - 1 AS id, x.hwid, COALESCE(s.attempts[x.n::integer], 1) AS attempt
                                FROM unnest(s.hwids) WITH ORDINALITY AS x (hwid, n)) r
        WHERE s.message_id = \(message) AND s.first_id BETWEEN \(range).open_from - \(blockSize - 1) AND \(range).open_to\(stepFilter)
            AND r.id BETWEEN \(range).open_from AND \(range).open_to
            AND NOT EXISTS (SELECT 1 FROM deliveries o WHERE o.id = r.id)
        """
    }
}
