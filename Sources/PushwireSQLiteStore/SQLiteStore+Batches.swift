import PushwireStore

/// Fan-out batches on SQLite: in memory (`BatchTable`), their steps written to the database like
/// any other (the counters go to the message, the cursor and open records stay with the batch).
extension SQLiteStore {
    public var sharesFanOutBatches: Bool { false }

    public func batchBounds(applicationID: Int64, _ targeting: TargetingRecord, every: Int) async throws(StoreError) -> [String] {
        guard every > 0 else { throw .invalidChange("batch bounds need a positive run length, not \(every)") }
        var bounds: [String] = []
        var cursor: String?
        // A run ends a batch only when another target follows it.
        while true {
            let run = try await targets(applicationID: applicationID, targeting, afterHWID: cursor, limit: every + 1)
            guard run.count > every else { return bounds }
            let last = run[every - 1].hwid
            bounds.append(last)
            cursor = last
        }
    }

    public func cutFanOut(messageID: Int64, lease: MessageLease, bounds: [String]) async throws(StoreError) -> Bool {
        for (index, bound) in bounds.enumerated().dropFirst() where !bounds[index - 1].utf8.lexicographicallyPrecedes(bound.utf8) {
            throw .invalidChange("batch bounds of message \(messageID) are not ascending")
        }
        let (leases, batches) = (leases, batches)
        return try await writer.write { connection throws(StoreError) in
            let status = try sql { () throws(SQLiteError) -> Int64? in
                let row = try connection.statement("SELECT status FROM messages WHERE id = ?1")
                try row.bind(.int(messageID))
                defer { row.reset() }
                return try row.step() ? row.int(0) : nil
            }
            // Scheduled, or sending only when cut before (a whole fan-out started is left whole).
            guard status == 1 || (status == 2 && batches.isCut(messageID)) else { return false }
            guard leases.take(messageID, lease, orTakeOver: true) else { return false }
            try sql { () throws(SQLiteError) in
                try connection.statement("UPDATE messages SET status = 2 WHERE id = ?1").bind(.int(messageID)).run()
            }
            batches.cut(messageID, bounds: bounds)
            leases.release([messageID], owner: lease.owner)
            return true
        }
    }

    public func claimFanOutBatches(_ lease: MessageLease, limit: Int) async throws(StoreError) -> [FanOutBatchRecord] {
        batches.claim(lease, limit: limit)
    }

    public func renewBatchLeases(_ lease: MessageLease, batches ids: [FanOutBatchID]) async throws(StoreError) -> [FanOutBatchID] {
        batches.renew(ids, lease)
    }

    public func releaseBatchLeases(owner: String, batches ids: [FanOutBatchID]) async throws(StoreError) {
        batches.release(ids, owner: owner)
    }

    public func openDeliveries(batch id: FanOutBatchID) async throws(StoreError) -> [OpenDeliveryRecord] {
        guard let batch = batches.batch(id) else { throw .notFound("batch \(id.index) of message \(id.messageID)") }
        return try read(snapshot: true) { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                // The batch's records handed over last without outcomes (another batch's may fall in
                // the open range: the hwid range keeps them out), then its range's retries.
                let row = try connection.statement("""
                    SELECT o.id, o.hwid, o.attempt, o.state, COALESCE(v.device_type, 0) FROM (
                        SELECT d.id, d.hwid, d.attempt, d.state, m.app_id FROM messages m JOIN deliveries d
                            ON d.id BETWEEN ?2 AND ?3 AND d.message_id = m.id AND d.state = 0
                        WHERE m.id = ?1 AND (?4 IS NULL OR d.hwid > ?4) AND (?5 IS NULL OR d.hwid <= ?5)
                        UNION ALL
                        SELECT d.id, d.hwid, d.attempt, d.state, m.app_id FROM deliveries d JOIN messages m ON m.id = d.message_id
                        WHERE d.message_id = ?1 AND d.state = 3 AND (?4 IS NULL OR d.hwid > ?4) AND (?5 IS NULL OR d.hwid <= ?5)
                    ) o LEFT JOIN devices v ON v.app_id = o.app_id AND v.hwid = o.hwid
                    ORDER BY 1
                    """)
                try row.bind(.int(id.messageID), .int(batch.openFrom), .int(batch.openTo),
                             batch.record.afterHWID.map { .text($0) } ?? .null, batch.record.throughHWID.map { .text($0) } ?? .null)
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
}
