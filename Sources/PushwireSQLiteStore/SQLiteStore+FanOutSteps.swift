import Foundation
import PushwireStore

/// The fan-out's writes on SQLite: the open attempt records, and the steps that record outcomes
/// and hand over new attempts.
extension SQLiteStore {
    /// Delivery states in `deliveries.state`.
    enum DeliveryState: Int64 {
        case handedOver = 0, sent = 1, failed = 2, retryPending = 3, replaced = 4
    }

    public func openDeliveries(messageID: Int64) async throws(StoreError) -> [OpenDeliveryRecord] {
        try read(snapshot: true) { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                // The batch handed over last, if its outcomes were never recorded, then the retries.
                let row = try connection.statement("""
                    SELECT o.id, o.hwid, o.attempt, o.state, COALESCE(v.device_type, 0) FROM (
                        SELECT d.id, d.hwid, d.attempt, d.state, m.app_id FROM messages m JOIN deliveries d
                            ON d.id BETWEEN m.open_from AND m.open_to AND d.message_id = m.id AND d.state = 0
                        WHERE m.id = ?1
                        UNION ALL
                        SELECT d.id, d.hwid, d.attempt, d.state, m.app_id FROM deliveries d JOIN messages m ON m.id = d.message_id
                        WHERE d.message_id = ?1 AND d.state = 3
                    ) o LEFT JOIN devices v ON v.app_id = o.app_id AND v.hwid = o.hwid
                    ORDER BY 1
                    """)
                try row.bind(.int(messageID))
                defer { row.reset() }
                var open: [OpenDeliveryRecord] = []
                while try row.step() {
                    open.append(OpenDeliveryRecord(deliveryID: UInt64(row.int(0)), hwid: row.text(1), attempt: Int(row.int(2)),
                                                   handedOver: row.int(3) == DeliveryState.handedOver.rawValue,
                                                   deviceType: Int32(truncatingIfNeeded: row.int(4))))
                }
                return open
            }
        }
    }

    public func recordFanOutStep(_ step: FanOutStep) async throws(StoreError) -> [UInt64] {
        try SQLiteStore.checkStillWithGateway(step)
        let (leases, batches, rowPlatforms) = (leases, batches, rowPlatforms)
        return try await writer.write(background: true) { connection throws(StoreError) in
            if try !SQLiteStore.underLease([step], leases, batches)[0] { return [] }
            defer { if step.finish { leases.release([step.messageID], owner: nil) } }
            return try sql { () throws(SQLiteError) in
                var records = NewRecords()
                let ids = try SQLiteStore.apply(step, on: connection, records: &records, batches: batches, rowPlatforms: rowPlatforms)
                try records.insert(on: connection)
                return ids
            }
        }
    }

    public func recordFanOutSteps(_ steps: [FanOutStep]) async throws(StoreError) -> [[UInt64]] {
        // Steps are read in place, by index, here and below: a step copied (`for step in
        // steps`) retained and released each of its dozen arrays and strings.
        for index in steps.indices { try SQLiteStore.checkStillWithGateway(steps[index]) }
        // Built here, off the writer's thread: which steps only close a message whose every
        // device was sent (the usual last step of a small message), by how many were sent.
        var plain: [Int: [Int64]] = [:]
        var isPlain: [Bool] = []
        isPlain.reserveCapacity(steps.count)
        // Only when every step is another message's, so that the order of their writes cannot matter.
        let distinct = Set(steps.map(\.messageID)).count == steps.count
        for index in steps.indices {
            let sent = distinct ? SQLiteStore.plainFinishSent(steps[index]) : nil
            if let sent { plain[sent, default: []].append(steps[index].messageID) }
            isPlain.append(sent != nil)
        }
        let (plainBySent, plainSteps) = (plain, isPlain)
        // One writer job (one savepoint) for all of them, in the background: no caller waits on it.
        let (leases, batches, rowPlatforms) = (leases, batches, rowPlatforms)
        return try await writer.write(background: true) { connection throws(StoreError) in
            let allowed = try SQLiteStore.underLease(steps, leases, batches)
            defer { leases.release(steps.indices.filter { steps[$0].finish }.map { steps[$0].messageID }, owner: nil) }
            var plainBySent = plainBySent
            var plainSteps = plainSteps
            for index in steps.indices where !allowed[index] || plainSteps[index] {
                // A plain finish leaves the row's platform as it is: only for a step whose counts
                // are all of the platform the row is known to count (RowPlatforms).
                if allowed[index], case .one(let platform) = StepPlatforms(steps[index], FanOutOutcomeCounts(steps[index].results)),
                   rowPlatforms.platform(of: steps[index].messageID) == platform {
                    rowPlatforms.forget(steps[index].messageID)
                    continue
                }
                plainSteps[index] = false
                let messageID = steps[index].messageID
                for sent in plainBySent.keys { plainBySent[sent]?.removeAll { $0 == messageID } }
            }
            return try sql { () throws(SQLiteError) in
                var ids: [[UInt64]] = []
                ids.reserveCapacity(steps.count)
                var records = NewRecords()
                for index in steps.indices {
                    if !allowed[index] || plainSteps[index] {
                        ids.append([])
                    } else {
                        ids.append(try SQLiteStore.apply(steps[index], on: connection, records: &records, batches: batches,
                                                         rowPlatforms: rowPlatforms))
                    }
                }
                for (sent, messageIDs) in plainBySent { try SQLiteStore.finishAllSent(messageIDs, sent: sent, on: connection) }
                try records.insert(on: connection)
                return ids
            }
        }
    }

    /// Which of `steps` may be written under their leases (`FanOutStep.lease`): a step
    /// that starts its message takes the lease unless another owner holds it live (false: it
    /// writes nothing); any other step must be its owner's, else the job fails as a whole.
    static func underLease(_ steps: [FanOutStep], _ leases: LeaseTable, _ batches: BatchTable) throws(StoreError) -> [Bool] {
        var allowed: [Bool] = []
        allowed.reserveCapacity(steps.count)
        for index in steps.indices {
            let (messageID, startsSending) = (steps[index].messageID, steps[index].startsSending)
            if let batch = steps[index].batch {
                // A batch's step is fenced by the batch's lease, not the message's.
                guard let lease = steps[index].lease, !startsSending else {
                    throw .invalidChange("a step of a batch of message \(messageID) needs its lease and cannot start the message")
                }
                if let refusal = batches.refusal(FanOutBatchID(messageID: messageID, index: batch), owner: lease.owner) { throw refusal }
                allowed.append(true)
                continue
            }
            guard let lease = steps[index].lease else {
                allowed.append(true)
                continue
            }
            let held = leases.take(messageID, lease, orTakeOver: startsSending)
            if !held && !startsSending {
                throw .leaseLost("message \(messageID) is held by another server")
            }
            allowed.append(held)
        }
        return allowed
    }

    /// The open records of a message are kept as one range of ids (`open_from…open_to`), which
    /// holds `stillWithGateway` only when those ids are one step's: this engine gives each
    /// step's records consecutive ids. Anything else would be recorded wrongly, so it is refused.
    static func checkStillWithGateway(_ step: FanOutStep) throws(StoreError) {
        let ids = step.stillWithGateway
        guard let first = ids.min(), let last = ids.max() else { return }
        // Distinct and spanning exactly their count: each id's slot marked once (a `Set` of
        // 5,000 ids hashed each, 2 % of a large fan-out).
        var seen = [Bool](repeating: false, count: ids.count)
        let distinct = last - first + 1 == UInt64(ids.count) && ids.allSatisfy { id in
            let slot = Int(id - first)
            if seen[slot] { return false }
            seen[slot] = true
            return true
        }
        if !distinct {
            throw .invalidChange("stillWithGateway of message \(step.messageID) is not the ids of one earlier step")
        }
    }

    /// How many devices `step` records as sent, when that is all it does: closes its message
    /// (no failures, retries, new records, badges, cursor or targets, nothing else open).
    static func plainFinishSent(_ step: FanOutStep) -> Int? {
        guard step.finish, step.batch == nil, !step.startsSending, step.stillWithGateway.isEmpty, step.handOver.isEmpty, step.badges.isEmpty,
              step.cursor == nil, step.targetedIncrement == 0, !step.results.isEmpty else { return nil }
        for index in step.results.indices {
            guard case .sent = step.results[index].result else { return nil }
        }
        return step.results.count
    }

    /// What `apply` writes for each of `messageIDs` given a plain finishing step with `sent` devices
    /// sent (`plainFinishSent`), `finishRowsPerUpdate` messages to an UPDATE (then powers of two):
    /// the last step of every small message was a statement of its own (reset, ten bindings, a
    /// VDBE program run), and reading the ids from one JSON array cost more than binding them.
    static func finishAllSent(_ messageIDs: [Int64], sent: Int, on connection: SQLiteConnection) throws(SQLiteError) {
        try forEachPowerOfTwoRun(count: messageIDs.count, largest: finishRowsPerUpdate) { (index, size) throws(SQLiteError) in
            let update = try connection.statement(StatementKey(kind: ObjectIdentifier(FanOutStep.self), variant: size)) {
                SQLiteStore.finishAllSentUpdates[size.trailingZeroBitCount]
            }
            try update.bind(1, Int64(sent))
            for offset in 0..<size { try update.bind(Int32(offset + 2), messageIDs[index + offset]) }
            try update.run()
        }
    }

    /// Messages per `finishAllSent` UPDATE (a power of two).
    static let finishRowsPerUpdate = 64

    /// `finishAllSent`'s UPDATEs of 1, 2, 4 … `finishRowsPerUpdate` messages, by the power of
    /// two: `?1` is the devices sent, then the messages' ids.
    static let finishAllSentUpdates: [String] = (0...finishRowsPerUpdate.trailingZeroBitCount).map { power in
        "UPDATE messages SET sent = sent + ?1, status = 3, open_from = 0, open_to = -1 WHERE id IN ("
            + (0..<(1 << power)).map { "?\($0 + 2)" }.joined(separator: ", ") + ")"
    }

    /// A step's UPDATE of its message row (see `apply`).
    static let stepUpdateSQL: StaticString = """
        UPDATE messages SET sent = sent + ?2, failed = failed + ?3, invalid_tokens = invalid_tokens + ?4,
            targeted = targeted + ?5, cursor = COALESCE(?6, cursor),
            status = CASE WHEN ?7 THEN 3 WHEN ?10 THEN 2 ELSE status END, open_from = ?8, open_to = ?9,
            platform_device_type = COALESCE(?11, platform_device_type)
        WHERE id = ?1 AND (NOT ?10 OR status IN (1, 2)) AND (NOT ?12 OR platform_device_type IS NULL)
        """

    /// Writes one step: the message row first (one UPDATE: counters, cursor, open range, status;
    /// for a first step only if the message is still scheduled or sending, else nothing is
    /// written and nothing handed over), then the outcomes and badge changes; its new attempt
    /// records are added to `records` (inserted at the end of the job).
    private static func apply(_ step: FanOutStep, on connection: SQLiteConnection, records: inout NewRecords,
                              batches: BatchTable, rowPlatforms: RowPlatforms) throws(SQLiteError) -> [UInt64] {
        let outcomes = FanOutOutcomeCounts(step.results)
        // Where its per-platform counts go (RowPlatforms), decided before the row is written.
        let platform = try rowPlatforms.column(for: step, StepPlatforms(step, outcomes), on: connection)
        let (sent, failed, invalid) = (outcomes.sent, outcomes.failed, outcomes.invalidTokens)
        let count = Int64(step.handOver.count)
        let firstID = count == 0 ? 0 : try records.reserve(step.handOver.count, on: connection)
        // The outcomes recorded here close the older records: the open range is now this batch's,
        // from the batch still with the gateway if there is one.
        // Those ids are consecutive (`checkStillWithGateway`): the range starts at the first.
        let stillFrom = step.stillWithGateway.min().map { Int64($0) }
        let openFrom = stillFrom ?? (count == 0 ? 0 : firstID)
        let openTo = count > 0 ? firstID + count - 1 : (stillFrom == nil ? -1 : Int64.max)
        if let batch = step.batch {
            // A batch's cursor and open records are the batch's; the message gets the counts,
            // and is done with its last batch.
            let allDone = batches.step(FanOutBatchID(messageID: step.messageID, index: batch), cursor: step.cursor, openFrom: openFrom,
                                       openTo: openTo, finish: step.finish, untilMS: step.lease?.untilMS ?? 0)
            try connection.statement("""
                UPDATE messages SET sent = sent + ?2, failed = failed + ?3, invalid_tokens = invalid_tokens + ?4,
                    targeted = targeted + ?5, status = CASE WHEN ?6 THEN 3 ELSE status END,
                    platform_device_type = COALESCE(?7, platform_device_type) WHERE id = ?1
                """).bind(.int(step.messageID), .int(sent), .int(failed), .int(invalid), .int(Int64(step.targetedIncrement)),
                          .int(step.finish && allDone ? 1 : 0), platform.value.map { .int($0) } ?? .null).run()
            rowPlatforms.wrote(platform.value, step)
            return try applyRecords(step, on: connection, records: &records, firstID: firstID, countsInTable: platform.value == -1)
        }
        // A literal (found by its address, not by hashing its text) and typed binds (no array
        // of values): one per message and step, twice per small message.
        let update = try connection.statement(SQLiteStore.stepUpdateSQL)
        try update.bind(1, step.messageID)
        try update.bind(2, sent)
        try update.bind(3, failed)
        try update.bind(4, invalid)
        try update.bind(5, Int64(step.targetedIncrement))
        if let cursor = step.cursor { try update.bind(6, cursor) }  // unbound is NULL: the cursor stays
        try update.bind(7, step.finish ? 1 : 0)
        try update.bind(8, openFrom)
        try update.bind(9, openTo)
        try update.bind(10, step.startsSending ? 1 : 0)
        var column = platform.value
        if let column { try update.bind(11, column) }  // unbound is NULL: the column stays
        try update.bind(12, platform.onlyFromNull ? 1 : 0)
        try update.run()
        if platform.onlyFromNull, connection.changes == 0 {
            // Counted before (or cancelled): the row's counts, if any, go to the table, as this step's.
            try rowPlatforms.unflag(step.messageID, on: connection)
            column = -1
            try update.bind(11, -1)
            try update.bind(12, 0)
            try update.run()
        }
        // Cancelled (or gone) before it started: nothing written, nothing to hand over.
        if step.startsSending, connection.changes == 0 { return [] }
        rowPlatforms.wrote(column, step)
        return try applyRecords(step, on: connection, records: &records, firstID: firstID, countsInTable: column == -1)
    }

    /// The rest of a step after its message row: platform counts (when the row does not keep
    /// them), outcomes, failure counts, dead tokens, replaced records, new records (added to
    /// `records`) and badges.
    private static func applyRecords(_ step: FanOutStep, on connection: SQLiteConnection, records: inout NewRecords,
                                     firstID: Int64, countsInTable: Bool) throws(SQLiteError) -> [UInt64] {
        if countsInTable { records.addPlatformCounts(step) }

        var failuresByReason: [String: Int64] = [:]
        // Looked up only when a record changes state: a step whose devices were all sent (the
        // common case) has none, and each lookup hashes the statement's text.
        var setStateStatement: Statement?
        func setState() throws(SQLiteError) -> Statement {
            if let setStateStatement { return setStateStatement }
            let statement = try connection.statement("UPDATE deliveries SET state = ?2, reason = ?3 WHERE id = ?1")
            setStateStatement = statement
            return statement
        }
        for result in step.results {
            let id = Int64(result.deliveryID)
            switch result.result {
            case .sent:
                // Left at state 0: moving the open range past it records it as sent.
                break
            case .failed(let reason, _, let refused):
                failuresByReason[reason, default: 0] += 1
                try setState().bind(.int(id), .int(DeliveryState.failed.rawValue), .text(reason)).run()
                if let refused {
                    // Only while it is still the device's token: one registered since stays live.
                    try connection.statement("""
                        UPDATE devices SET dead_token = ?3, dead_token_state = ?4, dead_token_since_ms = ?5
                        WHERE app_id = ?1 AND hwid = ?2 AND push_token = ?3
                        """)
                        .bind(.int(step.applicationID), .text(result.hwid), .text(refused.token),
                              .int(refused.state.rawValue), .int(refused.sinceMS)).run()
                }
            case .retryPending(let reason):
                try setState().bind(.int(id), .int(DeliveryState.retryPending.rawValue), .text(reason)).run()
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
        // By index: a copy of each record retained and released its hwid once more.
        for offset in step.handOver.indices {
            if let replaced = step.handOver[offset].replaces {
                try setState().bind(.int(Int64(replaced)), .int(DeliveryState.replaced.rawValue), .text("")).run()
            }
            records.add(messageID: step.messageID, hwid: step.handOver[offset].hwid, attempt: step.handOver[offset].attempt)
            ids.append(UInt64(firstID + Int64(offset)))
        }
        for (hwid, badge) in step.badges {
            try connection.statement("UPDATE devices SET badge = ?3 WHERE app_id = ?1 AND hwid = ?2")
                .bind(.int(step.applicationID), .text(hwid), .int(badge)).run()
        }
        return ids
    }
}
