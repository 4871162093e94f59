import PushwireStore

/// Fan-out batches on PostgreSQL (`FanOutBatchRecord`, schema version 5): a large message cut
/// into keyset ranges of its targets, each claimed by one server at a time with
/// `FOR UPDATE SKIP LOCKED` under a lease of its own, so that every server with a free slot
/// shares the message's fan-out.
extension PostgresStore {
    public var sharesFanOutBatches: Bool { true }

    public func batchBounds(applicationID: Int64, _ targeting: TargetingRecord, every: Int) async throws(StoreError) -> [String] {
        guard every > 0 else { throw .invalidChange("batch bounds need a positive run length, not \(every)") }
        return try await read { connection throws(StoreError) in
            let (clause, values) = PostgresStore.targetingClause(targeting)
            // A walk of the (app_id, hwid) key from each bound to the next, in `targets`' order
            // and filter: one row a run, the `every`-th. (A window numbering every target in one
            // query took 4–6 s for 1 M devices on a loaded machine, against about 1 s for this.)
            var bounds: [String] = []
            var after = ""
            while true {
                let rows = try pg { () throws(PGError) in
                    try connection.query("""
                        SELECT hwid FROM devices
                        WHERE app_id = $1 AND hwid > $2 AND push_token <> '' AND push_token <> dead_token\(clause)
                        ORDER BY hwid OFFSET $3 LIMIT 2
                        """, [String(applicationID), after, String(every - 1)] + values)
                }
                // The run's last target ends a batch only when another target follows it.
                guard rows.count == 2 else { return bounds }
                after = rows.text(0, 0)
                bounds.append(after)
            }
        }
    }

    public func cutFanOut(messageID: Int64, lease: MessageLease, bounds: [String]) async throws(StoreError) -> Bool {
        for (index, bound) in bounds.enumerated().dropFirst() where !bounds[index - 1].utf8.lexicographicallyPrecedes(bound.utf8) {
            throw .invalidChange("batch bounds of message \(messageID) are not ascending")
        }
        return try await write(background: true) { connection throws(StoreError) in
            try pg { () throws(PGError) -> Bool in
                // Moves it to sending under the lease, as a first step does (a cut message is
                // taken as is); its message lease is given up: its batches are claimed instead.
                let updated = try connection.query(PostgresOutbox.updatingStatus("""
                    UPDATE messages SET status = 2, batches = CASE WHEN batches = 0 THEN $4 ELSE batches END,
                        lease_owner = NULL, lease_until_ms = 0
                    WHERE id = $1 AND status IN (1, 2) AND (status = 1 OR batches > 0)
                        AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until_ms < $3)
                    RETURNING id, status, send_at_ms
                    """), [String(messageID), lease.owner, String(lease.nowMS), String(bounds.count + 1)])
                guard updated.count > 0 else { return false }
                let cut = try connection.query("SELECT 1 FROM message_batches WHERE message_id = $1 LIMIT 1", [String(messageID)])
                if cut.count > 0 { return true }  // cut before: left as it is
                let afters: [String?] = [nil] + bounds
                let throughs: [String?] = bounds + [nil]
                try connection.query("""
                    INSERT INTO message_batches (message_id, batch, after_hwid, through_hwid)
                    SELECT $1, n - 1, a, t FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS r (a, t, n)
                    """, [String(messageID), PGText.optionalTextArray(afters), PGText.optionalTextArray(throughs)])
                return true
            }
        }
    }

    public func claimFanOutBatches(_ lease: MessageLease, limit: Int) async throws(StoreError) -> [FanOutBatchRecord] {
        guard limit > 0 else { return [] }
        return try await write(background: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                // SKIP LOCKED: a batch another server is claiming or stepping is passed over.
                let rows = try connection.query("""
                    UPDATE message_batches b SET lease_owner = $1, lease_until_ms = $3
                    FROM (SELECT message_id, batch FROM message_batches
                          WHERE NOT done AND (lease_owner IS NULL OR lease_until_ms < $2)
                          ORDER BY message_id, batch LIMIT $4 FOR UPDATE SKIP LOCKED) c
                    WHERE b.message_id = c.message_id AND b.batch = c.batch
                    RETURNING b.message_id, b.batch, b.after_hwid, b.through_hwid, b.cursor
                    """, [lease.owner, String(lease.nowMS), String(lease.untilMS), String(limit)])
                return (0..<rows.count).map { row in
                    FanOutBatchRecord(id: FanOutBatchID(messageID: rows.int(row, 0), index: Int(rows.int(row, 1))),
                                      afterHWID: rows.isNull(row, 2) ? nil : rows.text(row, 2),
                                      throughHWID: rows.isNull(row, 3) ? nil : rows.text(row, 3),
                                      cursor: rows.isNull(row, 4) ? nil : rows.text(row, 4))
                }.sorted { $0.id < $1.id }
            }
        }
    }

    public func renewBatchLeases(_ lease: MessageLease, batches: [FanOutBatchID]) async throws(StoreError) -> [FanOutBatchID] {
        if batches.isEmpty { return [] }
        return try await write(background: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                let rows = try connection.query("""
                    UPDATE message_batches b SET lease_until_ms = $4
                    FROM unnest($2::bigint[], $3::integer[]) AS r (message_id, batch)
                    WHERE b.message_id = r.message_id AND b.batch = r.batch AND b.lease_owner = $1 AND NOT b.done
                    RETURNING b.message_id, b.batch
                    """, [lease.owner, PGText.intArray(batches.map(\.messageID)), PGText.intArray(batches.map { Int64($0.index) }),
                          String(lease.untilMS)])
                return (0..<rows.count).map { FanOutBatchID(messageID: rows.int($0, 0), index: Int(rows.int($0, 1))) }.sorted()
            }
        }
    }

    public func releaseBatchLeases(owner: String, batches: [FanOutBatchID]) async throws(StoreError) {
        if batches.isEmpty { return }
        try await write(background: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                _ = try connection.query("""
                    UPDATE message_batches b SET lease_owner = NULL, lease_until_ms = 0
                    FROM unnest($2::bigint[], $3::integer[]) AS r (message_id, batch)
                    WHERE b.message_id = r.message_id AND b.batch = r.batch AND b.lease_owner = $1
                    """, [owner, PGText.intArray(batches.map(\.messageID)), PGText.intArray(batches.map { Int64($0.index) })])
            }
        }
    }

    public func openDeliveries(batch: FanOutBatchID) async throws(StoreError) -> [OpenDeliveryRecord] {
        try await read(snapshot: true) { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("SELECT 1 FROM message_batches WHERE message_id = $1 AND batch = $2",
                                     [String(batch.messageID), String(batch.index)])
            }
            guard rows.count > 0 else { throw .notFound("batch \(batch.index) of message \(batch.messageID)") }
            // The batch's records handed over last without outcomes (either form:
            // `DeliverySteps`), then its range's retries. Ids come from one sequence for every
            // server, so another batch's records may fall in the open range: compact records are
            // their step's batch's, older ones are kept out by the hwid range.
            let inRange = "(b.after_hwid IS NULL OR d.hwid > b.after_hwid) AND (b.through_hwid IS NULL OR d.hwid <= b.through_hwid)"
            let open = try pg { () throws(PGError) in
                try connection.query("""
                    SELECT o.id, o.hwid, o.attempt, o.state, COALESCE(v.device_type, 0) FROM (
                        SELECT h.id, h.hwid, h.attempt, h.state, m.app_id FROM message_batches b
                            JOIN messages m ON m.id = b.message_id
                            CROSS JOIN LATERAL (
                                \(DeliverySteps.handedOverSQL(message: "b.message_id", range: "b", stepFilter: " AND s.batch = b.batch",
                                                              rowFilter: " AND " + inRange))
                            ) h
                        WHERE b.message_id = $1 AND b.batch = $2
                        UNION ALL
                        SELECT d.id, d.hwid, d.attempt, d.state, m.app_id FROM message_batches b
                            JOIN messages m ON m.id = b.message_id
                            JOIN deliveries d ON d.message_id = b.message_id AND d.state = 3 AND \(inRange)
                        WHERE b.message_id = $1 AND b.batch = $2
                    ) o LEFT JOIN devices v ON v.app_id = o.app_id AND v.hwid = o.hwid
                    ORDER BY 1
                    """, [String(batch.messageID), String(batch.index)])
            }
            return (0..<open.count).map { row in
                OpenDeliveryRecord(deliveryID: UInt64(open.int(row, 0)), hwid: open.text(row, 1), attempt: Int(open.int(row, 2)),
                                   handedOver: open.int(row, 3) == DeliveryState.handedOver.rawValue,
                                   deviceType: Int32(truncatingIfNeeded: open.int(row, 4)))
            }
        }
    }

    /// A batch step's UPDATE of its batch row, the fence: cursor, open range, done; only while
    /// `$3` holds the batch's lease (renewed to `$8`) and the batch is not done.
    static let batchStepUpdateSQL = """
        UPDATE message_batches SET cursor = COALESCE($4, cursor), open_from = $5, open_to = $6, done = $7::boolean,
            lease_until_ms = $8::bigint
        WHERE message_id = $1 AND batch = $2 AND lease_owner = $3::text AND NOT done
        """

    /// A batch step's UPDATE of its message: the counters, and `done` once no batch is left
    /// open. Last but for failures and platform counts (the order every step locks them in),
    /// so that other servers' steps of the same message wait for its row lock only for the
    /// COMMIT. A finishing step locks the row with a statement of its own first: the check of
    /// the other batches then sees every step committed before it (READ COMMITTED takes a new
    /// snapshot per statement), so the last two batches ending together cannot both miss it.
    static let batchMessageUpdateSQL = PostgresOutbox.updatingStatus("""
        UPDATE messages SET sent = sent + $2, failed = failed + $3, invalid_tokens = invalid_tokens + $4,
            targeted = targeted + $5,
            status = CASE WHEN $6::boolean AND NOT EXISTS (SELECT 1 FROM message_batches WHERE message_id = $1 AND NOT done)
                          THEN 3 ELSE status END
        WHERE id = $1
        RETURNING id, status, send_at_ms
        """)
}
