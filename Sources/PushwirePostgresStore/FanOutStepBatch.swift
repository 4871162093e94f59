import Foundation
import PushwireStore

/// The small messages' bookkeeping on PostgreSQL in a constant number of statements: their first
/// targets in one read, and a list of fan-out steps (`recordFanOutSteps`) written with one
/// statement per kind of change for all of them — attempt record ids, the message rows, outcomes,
/// dead tokens, failure counts, badges, new records, per-platform counters — where one step at a
/// time cost four to six statements each, a round trip apiece on the one writer connection.
///
/// What each step writes, and when it writes nothing, is `PostgresStore.apply`'s (one step): a
/// first step of a message cancelled meanwhile (or another server's) writes nothing and gets no
/// ids; a step whose lease was lost fails the whole list. The batch covers steps of distinct
/// messages with nothing still with the gateway (`canWrite`); others go one by one.
enum FanOutStepBatch {
    /// Whether the steps can be written together: distinct messages (a statement may not change a
    /// row twice) and no `stillWithGateway` (checked against the stored records step by step).
    static func canWrite(_ steps: [FanOutStep]) -> Bool {
        var messages = Set<Int64>()
        for step in steps {
            guard step.stillWithGateway.isEmpty, messages.insert(step.messageID).inserted else { return false }
        }
        return true
    }

    /// Whether the message's targeting names devices and nothing else (a small message's).
    static func namesDevicesOnly(_ message: MessageRecord) -> Bool {
        let targeting = message.targeting
        return !targeting.hwids.isEmpty && targeting.userIDs.isEmpty && targeting.platforms.isEmpty && targeting.conditions.isEmpty
    }

    /// The first `limit` targets (by hwid) of each message with `named[i]` in one statement, as
    /// `PostgresStore.targets` selects them; empty lists for the others. The statement reads each
    /// named device once, by one index scan over the arrays of the batch's applications and of its
    /// distinct hwids, and the rows are dealt out to the messages here. A join of one row per
    /// (message, hwid) probed the index once per row, and an `ORDER BY` sorted all of them: a
    /// batch of 62 messages to the same 10 devices cost 1.9 ms against 0.3 ms this way, 620
    /// distinct devices of 1,000,000 7.4 ms against 6.8
    /// (docs/journal/2026-12-07-first-targets-by-device.md).
    static func targetsByHWID(_ messages: [MessageRecord], _ named: [Bool], limit: Int,
                              on connection: PGConnection) throws(StoreError) -> [[TargetDevice]] {
        var all = [[TargetDevice]](repeating: [], count: messages.count)
        var applications: [Int64] = [], hwids: [String] = []
        var distinct = Set<ByteOrder.Key>()
        // By index: `enumerated()` copied each whole message record (a dozen buffers retained).
        for index in messages.indices where named[index] {
            let application = messages[index].applicationID
            if !applications.contains(application) { applications.append(application) }
            for hwid in messages[index].targeting.hwids where distinct.insert(ByteOrder.Key(hwid)).inserted { hwids.append(hwid) }
        }
        if hwids.isEmpty { return all }
        // A device of one application whose hwid another application's message names is read
        // too, and left out below: the index scan takes every (application, hwid) pair.
        let rows = try pg { () throws(PGError) in
            try connection.query("""
                SELECT app_id, hwid, push_token, language, badge, device_type FROM devices
                WHERE app_id = ANY($1::bigint[]) AND hwid = ANY($2::text[]) AND hwid > ''
                    AND push_token <> '' AND push_token <> dead_token
                """, [PGBinary.intArray(applications), PGBinary.textArray(hwids)])
        }
        var devices: [Int64: [ByteOrder.Key: TargetDevice]] = [:]
        for row in 0..<rows.count {
            let device = TargetDevice(hwid: rows.text(row, 1), pushToken: rows.text(row, 2), language: rows.text(row, 3),
                                      badge: rows.int(row, 4), deviceType: Int32(truncatingIfNeeded: rows.int(row, 5)))
            devices[rows.int(row, 0), default: [:]][ByteOrder.Key(device.hwid)] = device
        }
        for index in messages.indices where named[index] {
            guard let found = devices[messages[index].applicationID] else { continue }
            var targets: [TargetDevice] = []
            // Each device once, as `hwid = ANY(…)` selects it, in byte order (`COLLATE "C"`);
            // CreateMessage stores them so, and `distinct` then returns them as they are.
            for hwid in ByteOrder.distinct(messages[index].targeting.hwids) where targets.count < limit {
                if let device = found[ByteOrder.Key(hwid)] { targets.append(device) }
            }
            all[index] = targets
        }
        return all
    }

    /// The message rows' UPDATE for every step at once: `PostgresStore.stepUpdateSQL` with each
    /// parameter an array (one element per step), which also adds a step's counts of one platform
    /// (`p_type`, NULL: none) to the row's when the row counts that platform or none yet (then
    /// that one from now on; `PostgresSchema` version 9). Returns the id of each row it changed
    /// and the platform the row counts: a step's counts of another platform go to
    /// `message_platforms`.
    static let updateSQL = PostgresOutbox.updatingStatus("""
        UPDATE messages m SET sent = m.sent + u.sent, failed = m.failed + u.failed, invalid_tokens = m.invalid_tokens + u.invalid,
            targeted = m.targeted + u.targeted, cursor = COALESCE(u.cursor, m.cursor),
            status = CASE WHEN u.finish THEN 3 WHEN u.starts THEN 2 ELSE m.status END, open_from = u.open_from, open_to = u.open_to,
            lease_owner = COALESCE(u.owner, m.lease_owner),
            lease_until_ms = CASE WHEN u.owner IS NULL THEN m.lease_until_ms ELSE u.until_ms END,
            platform_device_type = COALESCE(m.platform_device_type, u.p_type),
            platform_targeted = m.platform_targeted + CASE WHEN COALESCE(m.platform_device_type, u.p_type) = u.p_type THEN u.p_targeted ELSE 0 END,
            platform_sent = m.platform_sent + CASE WHEN COALESCE(m.platform_device_type, u.p_type) = u.p_type THEN u.p_sent ELSE 0 END,
            platform_failed = m.platform_failed + CASE WHEN COALESCE(m.platform_device_type, u.p_type) = u.p_type THEN u.p_failed ELSE 0 END,
            platform_invalid_tokens = m.platform_invalid_tokens
                + CASE WHEN COALESCE(m.platform_device_type, u.p_type) = u.p_type THEN u.p_invalid ELSE 0 END
        FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::boolean[], $8::bigint[],
                    $9::bigint[], $10::boolean[], $11::text[], $12::bigint[], $13::bigint[], $14::integer[], $15::bigint[], $16::bigint[],
                    $17::bigint[], $18::bigint[])
            AS u (id, sent, failed, invalid, targeted, cursor, finish, open_from, open_to, starts, owner, now_ms, until_ms,
                  p_type, p_targeted, p_sent, p_failed, p_invalid)
        WHERE m.id = u.id AND (NOT u.starts OR m.status IN (1, 2))
            AND (u.owner IS NULL OR m.lease_owner = u.owner
                 OR (u.starts AND (m.lease_owner IS NULL OR m.lease_until_ms < u.now_ms)))
        RETURNING m.id, m.status, m.send_at_ms, m.platform_device_type
        """)

    /// Each step's counts of one platform, which `updateSQL` offers its message row (nil: none or
    /// several).
    static func rowPlatforms(_ steps: [FanOutStep]) -> [PlatformCountRecord?] {
        steps.map { PlatformCountRecord.onePlatform($0.platformCounts) }
    }

    /// `updateSQL`'s eighteen arrays for `steps`, `ids[i]` the new attempt record ids of `steps[i]`
    /// (its open range: first to last; none: 0 to -1), `platforms` their `rowPlatforms`.
    static func updateParameters(_ steps: [FanOutStep], ids: [[Int64]], platforms: [PlatformCountRecord?]) -> [PGParameter] {
        var sent: [Int64] = [], failed: [Int64] = [], invalid: [Int64] = []
        for step in steps {
            let counts = FanOutOutcomeCounts(step.results)
            sent.append(counts.sent)
            failed.append(counts.failed)
            invalid.append(counts.invalidTokens)
        }
        return [
            PGBinary.intArray(steps.map(\.messageID)), PGBinary.intArray(sent), PGBinary.intArray(failed), PGBinary.intArray(invalid),
            PGBinary.intArray(steps.map { Int64($0.targetedIncrement) }), PGBinary.optionalTextArray(steps.map(\.cursor)),
            PGBinary.boolArray(steps.map(\.finish)),
            PGBinary.intArray(ids.map { $0.first ?? 0 }), PGBinary.intArray(ids.map { $0.last ?? -1 }),
            PGBinary.boolArray(steps.map(\.startsSending)), PGBinary.optionalTextArray(steps.map { $0.lease?.owner }),
            PGBinary.intArray(steps.map { $0.lease?.nowMS ?? 0 }), PGBinary.intArray(steps.map { $0.lease?.untilMS ?? 0 }),
            PGBinary.optionalInt32Array(platforms.map { $0.map { Int64($0.deviceType) } }),
            PGBinary.intArray(platforms.map { Int64(clamping: $0?.targeted ?? 0) }), PGBinary.intArray(platforms.map { Int64(clamping: $0?.sent ?? 0) }),
            PGBinary.intArray(platforms.map { Int64(clamping: $0?.failed ?? 0) }),
            PGBinary.intArray(platforms.map { Int64(clamping: $0?.invalidTokens ?? 0) }),
        ]
    }

    /// Writes `steps` (see the type's comment; `canWrite` holds); returns each step's new ids.
    static func apply(_ steps: [FanOutStep], on connection: PGConnection) throws(StoreError) -> [[UInt64]] {
        // Ids for every new attempt record (blocks: `DeliverySteps`), ascending, dealt out in step order.
        let total = steps.reduce(0) { $0 + $1.handOver.count }
        let drawn = try DeliverySteps.drawIDs(total, on: connection)
        var ids: [[Int64]] = []
        ids.reserveCapacity(steps.count)
        var offset = 0
        for step in steps {
            ids.append(Array(drawn[offset..<offset + step.handOver.count]))
            offset += step.handOver.count
        }

        let platforms = rowPlatforms(steps)
        let updated = try pg { () throws(PGError) in
            try connection.query(updateSQL, updateParameters(steps, ids: ids, platforms: platforms))
        }
        // Each changed row's platform (NULL: none counted in the row).
        var changed: [Int64: Int64?] = [:]
        for row in 0..<updated.count { changed.updateValue(updated.isNull(row, 3) ? nil : updated.int(row, 3), forKey: updated.int(row, 0)) }
        var written: [Int] = []
        var countedInRow = [Bool](repeating: false, count: steps.count)
        for (index, step) in steps.enumerated() {
            if let platform = changed[step.messageID] {
                written.append(index)
                countedInRow[index] = platforms[index].map { Int64($0.deviceType) == platform } ?? false
            } else if step.startsSending {
                // Cancelled (or gone, or another server's) before it started: nothing written.
                ids[index] = []
            } else if step.lease != nil {
                // Taken over by another server: the whole job fails, so no step wrote anything.
                throw .leaseLost("message \(step.messageID) is held by another server")
            } else {
                written.append(index)
            }
        }
        try writeChanges(steps, written, ids, countedInRow: countedInRow, on: connection)
        return ids.map { $0.map { UInt64($0) } }
    }

    /// The rows besides the message rows of the steps at `written`: one statement per kind. The
    /// platform counts of a step `countedInRow` were added by the UPDATE of its message row.
    private static func writeChanges(_ steps: [FanOutStep], _ written: [Int], _ ids: [[Int64]], countedInRow: [Bool],
                                     on connection: PGConnection) throws(StoreError) {
        var stateMessages: [Int64] = [], stateIDs: [Int64] = [], stateHWIDs: [String] = [], states: [Int64] = [], reasons: [String] = []
        var failures: [FailureKey: Int64] = [:]
        var deadApps: [Int64] = [], deadHWIDs: [String] = [], deadTokens: [String] = [], deadStates: [Int64] = [], deadSince: [Int64] = []
        var badgeApps: [Int64] = [], badgeHWIDs: [String] = [], badges: [Int64] = []
        var newRows: [DeliverySteps.Row] = []
        var platforms: [PlatformKey: (targeted: Int64, sent: Int64, failed: Int64, invalid: Int64)] = [:]
        for index in written {
            let step = steps[index]
            for result in step.results {
                switch result.result {
                case .sent: break  // no row: moving the open range past it records it
                case .failed(let reason, _, let refused):
                    failures[FailureKey(messageID: step.messageID, reason: reason), default: 0] += 1
                    stateMessages.append(step.messageID); stateIDs.append(Int64(result.deliveryID)); stateHWIDs.append(result.hwid)
                    states.append(PostgresStore.DeliveryState.failed.rawValue)
                    reasons.append(reason)
                    if let refused {
                        deadApps.append(step.applicationID); deadHWIDs.append(result.hwid); deadTokens.append(refused.token)
                        deadStates.append(refused.state.rawValue); deadSince.append(refused.sinceMS)
                    }
                case .retryPending(let reason):
                    stateMessages.append(step.messageID); stateIDs.append(Int64(result.deliveryID)); stateHWIDs.append(result.hwid)
                    states.append(PostgresStore.DeliveryState.retryPending.rawValue)
                    reasons.append(reason)
                }
            }
            for delivery in step.handOver {
                if let replaced = delivery.replaces {
                    stateMessages.append(step.messageID); stateIDs.append(Int64(replaced)); stateHWIDs.append(delivery.hwid)
                    states.append(PostgresStore.DeliveryState.replaced.rawValue); reasons.append("")
                }
            }
            DeliverySteps.add(messageID: step.messageID, batch: step.batch, ids: ids[index], step.handOver, to: &newRows)
            for badge in step.badges {
                badgeApps.append(step.applicationID); badgeHWIDs.append(badge.hwid); badges.append(badge.badge)
            }
            for count in step.platformCounts where !countedInRow[index] {
                let key = PlatformKey(messageID: step.messageID, deviceType: count.deviceType)
                var sum = platforms[key] ?? (0, 0, 0, 0)
                sum.targeted += Int64(clamping: count.targeted)
                sum.sent += Int64(clamping: count.sent)
                sum.failed += Int64(clamping: count.failed)
                sum.invalid += Int64(clamping: count.invalidTokens)
                platforms[key] = sum
            }
        }
        // The last state given to each record wins, as when the steps ran one by one.
        try DeliverySteps.recordOutcomes(messageIDs: stateMessages, ids: stateIDs, hwids: stateHWIDs, states: states, reasons: reasons,
                                         on: connection)
        try DeliverySteps.insert(newRows, on: connection)
        try pg { () throws(PGError) in
            if !deadHWIDs.isEmpty {
                // Only rows whose token is still the dead one join, so two for one device set one value.
                try connection.query("""
                    UPDATE devices d SET dead_token = u.token, dead_token_state = u.state, dead_token_since_ms = u.since
                    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $5::bigint[]) AS u (app_id, hwid, token, state, since)
                    WHERE d.app_id = u.app_id AND d.hwid = u.hwid AND d.push_token = u.token
                    """, [PGText.intArray(deadApps), PGText.textArray(deadHWIDs), PGText.textArray(deadTokens),
                          PGText.intArray(deadStates), PGText.intArray(deadSince)])
            }
            if !failures.isEmpty {
                let keys = Array(failures.keys)
                try connection.query("""
                    INSERT INTO message_failures (message_id, reason, count)
                    SELECT message_id, reason, count FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS u (message_id, reason, count)
                    ON CONFLICT (message_id, reason) DO UPDATE SET count = message_failures.count + excluded.count
                    """, [PGText.intArray(keys.map(\.messageID)), PGText.textArray(keys.map(\.reason)),
                          PGText.intArray(keys.map { failures[$0] ?? 0 })])
            }
            if !badges.isEmpty {
                // The last badge of each device (an UPDATE … FROM with two rows for one device would take either).
                try connection.query("""
                    UPDATE devices d SET badge = u.badge
                    FROM (SELECT DISTINCT ON (app_id, hwid) app_id, hwid, badge FROM unnest($1::bigint[], $2::text[], $3::bigint[])
                          WITH ORDINALITY AS r (app_id, hwid, badge, n) ORDER BY app_id, hwid, n DESC) u
                    WHERE d.app_id = u.app_id AND d.hwid = u.hwid
                    """, [PGText.intArray(badgeApps), PGText.textArray(badgeHWIDs), PGText.intArray(badges)])
            }
            if !platforms.isEmpty {
                let keys = Array(platforms.keys)
                let sums = keys.map { platforms[$0] ?? (0, 0, 0, 0) }
                try connection.query("""
                    INSERT INTO message_platforms (message_id, device_type, targeted, sent, failed, invalid_tokens)
                    SELECT * FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
                    ON CONFLICT (message_id, device_type) DO UPDATE SET targeted = message_platforms.targeted + excluded.targeted,
                        sent = message_platforms.sent + excluded.sent, failed = message_platforms.failed + excluded.failed,
                        invalid_tokens = message_platforms.invalid_tokens + excluded.invalid_tokens
                    """, [PGText.intArray(keys.map(\.messageID)), PGText.intArray(keys.map { Int64($0.deviceType) }),
                          PGText.intArray(sums.map(\.targeted)), PGText.intArray(sums.map(\.sent)),
                          PGText.intArray(sums.map(\.failed)), PGText.intArray(sums.map(\.invalid))])
            }
        }
    }

    private struct FailureKey: Hashable {
        let messageID: Int64
        let reason: String
    }

    private struct PlatformKey: Hashable {
        let messageID: Int64
        let deviceType: Int32
    }
}
