import Foundation
import PushwireStore

/// The fan-out on PostgreSQL: selecting targets by keyset pagination and writing attempt records.
extension PostgresStore {
    /// Delivery states in `deliveries.state` (the SQLite engine's numbers).
    enum DeliveryState: Int64 {
        case handedOver = 0, sent = 1, failed = 2, retryPending = 3, replaced = 4
    }

    public func targets(applicationID: Int64, _ targeting: TargetingRecord, afterHWID: String?, limit: Int) async throws(StoreError) -> [TargetDevice] {
        try await read { connection throws(StoreError) in
            try PostgresStore.targets(applicationID: applicationID, targeting, afterHWID: afterHWID, limit: limit, on: connection)
        }
    }

    public func firstTargets(of messages: [MessageRecord], limit: Int) async throws(StoreError) -> [[TargetDevice]] {
        // Messages naming their devices (small messages) are read by one statement together
        // (`FanOutStepBatch.targetsByHWID`); the others one statement each, in the same snapshot.
        let named = messages.map(FanOutStepBatch.namesDevicesOnly)
        let others = named.filter { !$0 }.count
        return try await read(snapshot: others > 0 && messages.count > 1) { connection throws(StoreError) in
            var all = try FanOutStepBatch.targetsByHWID(messages, named, limit: limit, on: connection)
            for (index, message) in messages.enumerated() where !named[index] {
                all[index] = try PostgresStore.targets(applicationID: message.applicationID, message.targeting, afterHWID: nil,
                                                       limit: limit, on: connection)
            }
            return all
        }
    }

    private static func targets(applicationID: Int64, _ targeting: TargetingRecord, afterHWID: String?, limit: Int,
                                on connection: PGConnection) throws(StoreError) -> [TargetDevice] {
        let (clause, values) = targetingClause(targeting)
        let rows = try pg { () throws(PGError) in
            try connection.query(targetsSQL(clause), [String(applicationID), afterHWID ?? "", String(limit)] + values)
        }
        return (0..<rows.count).map { row in
            TargetDevice(hwid: rows.text(row, 0), pushToken: rows.text(row, 1), language: rows.text(row, 2), badge: rows.int(row, 3),
                         deviceType: Int32(truncatingIfNeeded: rows.int(row, 4)))
        }
    }

    /// A page of targets: (app $1, after hwid $2, limit $3), narrowed by `clause` (`targetingClause`).
    static func targetsSQL(_ clause: String) -> String {
        """
        SELECT hwid, push_token, language, badge, device_type FROM devices
        WHERE app_id = $1 AND hwid > $2 AND push_token <> '' AND push_token <> dead_token\(clause)
        ORDER BY hwid LIMIT $3
        """
    }

    /// The SQL that narrows `devices` to the targeting (`TargetingClause`), with its values bound
    /// from `$4` on. Lists go as one array each, so that the text (and its prepared statement)
    /// depends only on which selectors and conditions the targeting has, not on how many values.
    static func targetingClause(_ targeting: TargetingRecord) -> (String, [String?]) {
        var dialect = PostgresTargetingDialect(after: 3)
        let clause = TargetingClause.build(targeting, &dialect)
        return (clause, dialect.values)
    }

    public func target(applicationID: Int64, hwid: String) async throws(StoreError) -> TargetDevice? {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("SELECT hwid, push_token, language, badge, device_type FROM devices WHERE app_id = $1 AND hwid = $2",
                                     [String(applicationID), hwid])
            }
            guard rows.count > 0 else { return nil }
            return TargetDevice(hwid: rows.text(0, 0), pushToken: rows.text(0, 1), language: rows.text(0, 2), badge: rows.int(0, 3),
                                deviceType: Int32(truncatingIfNeeded: rows.int(0, 4)))
        }
    }

    public func tokenRefusal(applicationID: Int64, hwid: String) async throws(StoreError) -> RefusedToken? {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("""
                    SELECT dead_token, dead_token_state, dead_token_since_ms FROM devices
                    WHERE app_id = $1 AND hwid = $2 AND push_token <> '' AND push_token = dead_token
                    """, [String(applicationID), hwid])
            }
            guard rows.count > 0 else { return nil }
            return RefusedToken(token: rows.text(0, 0), state: RefusedToken.State(rawValue: rows.int(0, 1)) ?? .dead, sinceMS: rows.int(0, 2))
        }
    }

    public func openDeliveries(messageID: Int64) async throws(StoreError) -> [OpenDeliveryRecord] {
        try await read(snapshot: true) { connection throws(StoreError) in
            // The records handed over last whose outcomes were never recorded (either form:
            // `DeliverySteps`), then the retries.
            let rows = try pg { () throws(PGError) in
                try connection.query("""
                    SELECT o.id, o.hwid, o.attempt, o.state, COALESCE(v.device_type, 0) FROM (
                        SELECT h.id, h.hwid, h.attempt, h.state, m.app_id FROM messages m CROSS JOIN LATERAL (
                            \(DeliverySteps.handedOverSQL(message: "m.id", range: "m", stepFilter: "", rowFilter: ""))
                        ) h
                        WHERE m.id = $1
                        UNION ALL
                        SELECT d.id, d.hwid, d.attempt, d.state, m.app_id FROM deliveries d JOIN messages m ON m.id = d.message_id
                        WHERE d.message_id = $1 AND d.state = 3
                    ) o LEFT JOIN devices v ON v.app_id = o.app_id AND v.hwid = o.hwid
                    ORDER BY 1
                    """, [String(messageID)])
            }
            return (0..<rows.count).map { row in
                OpenDeliveryRecord(deliveryID: UInt64(rows.int(row, 0)), hwid: rows.text(row, 1), attempt: Int(rows.int(row, 2)),
                                   handedOver: rows.int(row, 3) == DeliveryState.handedOver.rawValue,
                                   deviceType: Int32(truncatingIfNeeded: rows.int(row, 4)))
            }
        }
    }

    public func recordFanOutStep(_ step: FanOutStep) async throws(StoreError) -> [UInt64] {
        try await write(background: true) { connection throws(StoreError) in
            try PostgresStore.apply(step, on: connection)
        }
    }

    public func recordFanOutSteps(_ steps: [FanOutStep]) async throws(StoreError) -> [[UInt64]] {
        // One writer job: it fails as a whole (the batch's transaction is rolled back and the
        // others replayed), so the steps are all written or none.
        // Steps of distinct messages with nothing still with the gateway (small messages' steps)
        // are written by one statement per kind of change for all of them (`FanOutStepBatch`).
        let batched = steps.count > 1 && FanOutStepBatch.canWrite(steps)
        return try await write(background: true) { connection throws(StoreError) in
            if batched { return try FanOutStepBatch.apply(steps, on: connection) }
            var ids: [[UInt64]] = []
            ids.reserveCapacity(steps.count)
            for step in steps { ids.append(try PostgresStore.apply(step, on: connection)) }
            return ids
        }
    }

    /// A step's UPDATE of its message row: counters, cursor, open range, status; for a first step
    /// only if the message is still scheduled or sending.
    /// With a lease ($11 its owner, $12 the owner's now, $13 until when), only under it: a
    /// first step takes it when free, expired or the owner's; any other needs it the owner's.
    static let stepUpdateSQL = PostgresOutbox.updatingStatus("""
        UPDATE messages SET sent = sent + $2, failed = failed + $3, invalid_tokens = invalid_tokens + $4,
            targeted = targeted + $5, cursor = COALESCE($6, cursor),
            status = CASE WHEN $7::boolean THEN 3 WHEN $10::boolean THEN 2 ELSE status END, open_from = $8, open_to = $9,
            lease_owner = COALESCE($11::text, lease_owner),
            lease_until_ms = CASE WHEN $11::text IS NULL THEN lease_until_ms ELSE $13::bigint END
        WHERE id = $1 AND (NOT $10::boolean OR status IN (1, 2))
            AND ($11::text IS NULL OR lease_owner = $11::text
                 OR ($10::boolean AND (lease_owner IS NULL OR lease_until_ms < $12::bigint)))
        RETURNING id, status, send_at_ms
        """)

    /// Writes one step: ids for its new attempt records (a block, ascending), the message row,
    /// the outcomes, failure counts, dead tokens and badges, then the new records (one
    /// `delivery_steps` row: `DeliverySteps`); each kind of change is one statement over arrays,
    /// however many rows it has.
    private static func apply(_ step: FanOutStep, on connection: PGConnection) throws(StoreError) -> [UInt64] {
        if step.batch != nil, step.lease == nil || step.startsSending {
            throw .invalidChange("a step of a batch of message \(step.messageID) needs its lease and cannot start the message")
        }
        let ids = try DeliverySteps.drawIDs(step.handOver.count, on: connection)
        let changed = try pg { () throws(PGError) -> Bool in
            let outcomes = FanOutOutcomeCounts(step.results)
            let (sent, failed, invalid) = (outcomes.sent, outcomes.failed, outcomes.invalidTokens)
            let count = Int64(ids.count)
            let firstID = ids.first ?? 0
            // The open range is now this batch's, from the batch still with the gateway if there is one.
            let stillFrom = step.stillWithGateway.min().map { Int64($0) }
            let openFrom = stillFrom ?? (count == 0 ? 0 : firstID)
            let openTo = count > 0 ? (ids.last ?? firstID) : (stillFrom == nil ? -1 : Int64.max)
            if let batch = step.batch, let lease = step.lease {
                // A batch's step is fenced by the batch row; its counters go to the message last.
                let updated = try connection.query(batchStepUpdateSQL, [
                    String(step.messageID), String(batch), lease.owner, step.cursor, String(openFrom), String(openTo),
                    PGText.bool(step.finish), String(lease.untilMS),
                ])
                return updated.changes > 0
            }
            let updated = try connection.query(stepUpdateSQL, [
                String(step.messageID), String(sent), String(failed), String(invalid), String(step.targetedIncrement), step.cursor,
                PGText.bool(step.finish), String(openFrom), String(openTo), PGText.bool(step.startsSending),
                step.lease?.owner, String(step.lease?.nowMS ?? 0), String(step.lease?.untilMS ?? 0),
            ])
            return updated.count > 0
        }
        if let batch = step.batch, !changed {
            let exists = try pg { () throws(PGError) in
                try connection.query("SELECT 1 FROM message_batches WHERE message_id = $1 AND batch = $2",
                                     [String(step.messageID), String(batch)]).count > 0
            }
            if !exists { throw .notFound("batch \(batch) of message \(step.messageID)") }
            throw .leaseLost("batch \(batch) of message \(step.messageID) is held by another server (or done)")
        }
        // Cancelled (or gone, or another server's) before it started: nothing written.
        if step.startsSending, !changed { return [] }
        // Taken over by another server: the whole job fails, so this step wrote nothing.
        if step.lease != nil, !changed { throw .leaseLost("message \(step.messageID) is held by another server") }
        // After the UPDATE, which locked the message row: no other server's step on this message
        // can change its records between the check and the COMMIT.
        try DeliverySteps.checkStillWithGateway(step, on: connection)
        // Outcomes other than sent (a sent record gets no row: moving the open range past it
        // records it), and the retry-pending records the new attempts replace.
        var stateIDs: [Int64] = [], stateHWIDs: [String] = [], states: [Int64] = [], reasons: [String] = []
        var failuresByReason: [String: Int64] = [:]
        var deadHWIDs: [String] = [], deadTokens: [String] = [], deadStates: [Int64] = [], deadSince: [Int64] = []
        for result in step.results {
            switch result.result {
            case .sent: break
            case .failed(let reason, _, let refused):
                failuresByReason[reason, default: 0] += 1
                stateIDs.append(Int64(result.deliveryID)); stateHWIDs.append(result.hwid); states.append(DeliveryState.failed.rawValue)
                reasons.append(reason)
                if let refused {
                    deadHWIDs.append(result.hwid)
                    deadTokens.append(refused.token)
                    deadStates.append(refused.state.rawValue)
                    deadSince.append(refused.sinceMS)
                }
            case .retryPending(let reason):
                stateIDs.append(Int64(result.deliveryID)); stateHWIDs.append(result.hwid); states.append(DeliveryState.retryPending.rawValue)
                reasons.append(reason)
            }
        }
        for delivery in step.handOver {
            if let replaced = delivery.replaces {
                stateIDs.append(Int64(replaced)); stateHWIDs.append(delivery.hwid); states.append(DeliveryState.replaced.rawValue)
                reasons.append("")
            }
        }
        try DeliverySteps.recordOutcomes(messageIDs: Array(repeating: step.messageID, count: stateIDs.count), ids: stateIDs,
                                         hwids: stateHWIDs, states: states, reasons: reasons, on: connection)
        var rows: [DeliverySteps.Row] = []
        DeliverySteps.add(messageID: step.messageID, batch: step.batch, ids: ids, step.handOver, to: &rows)
        try DeliverySteps.insert(rows, on: connection)
        return try pg { () throws(PGError) in
            if !deadHWIDs.isEmpty {
                try connection.query("""
                    UPDATE devices d SET dead_token = u.token, dead_token_state = u.state, dead_token_since_ms = u.since
                    FROM unnest($2::text[], $3::text[], $4::integer[], $5::bigint[]) AS u (hwid, token, state, since)
                    WHERE d.app_id = $1 AND d.hwid = u.hwid AND d.push_token = u.token
                    """, [String(step.applicationID), PGText.textArray(deadHWIDs), PGText.textArray(deadTokens),
                          PGText.intArray(deadStates), PGText.intArray(deadSince)])
            }
            if !step.badges.isEmpty {
                // The last badge of each device (an UPDATE … FROM with two rows for one device
                // would take either).
                try connection.query("""
                    UPDATE devices d SET badge = u.badge
                    FROM (SELECT DISTINCT ON (hwid) hwid, badge FROM unnest($2::text[], $3::bigint[])
                          WITH ORDINALITY AS r (hwid, badge, n) ORDER BY hwid, n DESC) u
                    WHERE d.app_id = $1 AND d.hwid = u.hwid
                    """, [String(step.applicationID), PGText.textArray(step.badges.map(\.hwid)), PGText.intArray(step.badges.map(\.badge))])
            }
            if step.batch != nil {
                // After the records: the message row is what every server's steps of this
                // message share, so it is locked only from here to the COMMIT.
                if step.finish { try connection.query("SELECT 1 FROM messages WHERE id = $1 FOR UPDATE", [String(step.messageID)]) }
                let outcomes = FanOutOutcomeCounts(step.results)
                try connection.query(batchMessageUpdateSQL, [String(step.messageID), String(outcomes.sent), String(outcomes.failed),
                                                             String(outcomes.invalidTokens),
                                                             String(step.targetedIncrement), PGText.bool(step.finish)])
            }
            if !failuresByReason.isEmpty {
                let reasons = Array(failuresByReason.keys)
                try connection.query("""
                    INSERT INTO message_failures (message_id, reason, count)
                    SELECT $1, reason, count FROM unnest($2::text[], $3::bigint[]) AS u (reason, count)
                    ON CONFLICT (message_id, reason) DO UPDATE SET count = message_failures.count + excluded.count
                    """, [String(step.messageID), PGText.textArray(reasons), PGText.intArray(reasons.map { failuresByReason[$0] ?? 0 })])
            }
            if !step.platformCounts.isEmpty {
                // Summed per platform first: one statement may not change a row twice.
                try connection.query("""
                    INSERT INTO message_platforms (message_id, device_type, targeted, sent, failed, invalid_tokens)
                    SELECT $1, device_type, sum(targeted), sum(sent), sum(failed), sum(invalid_tokens)
                    FROM unnest($2::integer[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
                        AS r (device_type, targeted, sent, failed, invalid_tokens)
                    GROUP BY device_type
                    ON CONFLICT (message_id, device_type) DO UPDATE SET targeted = message_platforms.targeted + excluded.targeted,
                        sent = message_platforms.sent + excluded.sent, failed = message_platforms.failed + excluded.failed,
                        invalid_tokens = message_platforms.invalid_tokens + excluded.invalid_tokens
                    """, [String(step.messageID), PGText.intArray(step.platformCounts.map { Int64($0.deviceType) }),
                          PGText.intArray(step.platformCounts.map { Int64(clamping: $0.targeted) }),
                          PGText.intArray(step.platformCounts.map { Int64(clamping: $0.sent) }),
                          PGText.intArray(step.platformCounts.map { Int64(clamping: $0.failed) }),
                          PGText.intArray(step.platformCounts.map { Int64(clamping: $0.invalidTokens) })])
            }
            return ids.map { UInt64($0) }
        }
    }
}
