import Foundation
import PushwireJSON
import PushwireStore

/// The fan-out on SQLite: selecting targets by keyset pagination and writing attempt records.
extension SQLiteStore {
    /// Delivery states in `deliveries.state`.
    enum DeliveryState: Int64 {
        case handedOver = 0, sent = 1, failed = 2, retryPending = 3, replaced = 4
    }

    /// How much of the database file a reader that selects targets maps.
    static let targetsMmapBytes = 1 << 30

    public func targets(applicationID: Int64, _ targeting: TargetingRecord, afterHWID: String?, limit: Int) async throws(StoreError) -> [TargetDevice] {
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

    public func firstTargets(of messages: [MessageRecord], limit: Int) async throws(StoreError) -> [[TargetDevice]] {
        // One read transaction for all (`snapshot`: without BEGIN every statement is a
        // transaction of its own): each costs tens of microseconds while the writer commits
        // hundreds of times a second (file locks, the page cache dropped), more than a small
        // message's query itself.
        try read(snapshot: true) { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                try connection.statement("PRAGMA mmap_size = \(SQLiteStore.targetsMmapBytes)").run()
                // The devices named by messages that only name a few: one statement per
                // application for all of them (one per message, or per device, cost more in
                // statement executions than in rows read).
                var namedHWIDs: [Int64: [String]] = [:]
                // A message naming, byte for byte, the devices the previous one of its application
                // named adds nothing (a stream of messages to the same few devices made a list of
                // 64 × 10 hwids for 10 devices, each parsed and put in SQLite's ephemeral table).
                var previous: [Int64: [String]] = [:]
                for message in messages where SQLiteStore.isOnlyFewDevices(message.targeting) {
                    let hwids = message.targeting.hwids
                    if let last = previous[message.applicationID], SQLiteStore.sameBytes(last, hwids) { continue }
                    previous[message.applicationID] = hwids
                    namedHWIDs[message.applicationID, default: []].append(contentsOf: hwids)
                }
                var named: [Int64: NamedDevices] = [:]
                for (applicationID, hwids) in namedHWIDs {
                    named[applicationID] = try NamedDevices(applicationID: applicationID, hwids: hwids, on: connection)
                }
                var all: [[TargetDevice]] = []
                all.reserveCapacity(messages.count)
                for message in messages {
                    if let devices = named[message.applicationID], SQLiteStore.isOnlyFewDevices(message.targeting) {
                        all.append(devices.targets(message.targeting.hwids, afterHWID: nil, limit: limit))
                    } else {
                        all.append(try SQLiteStore.targets(applicationID: message.applicationID, message.targeting, afterHWID: nil,
                                                           limit: limit, on: connection))
                    }
                }
                return all
            }
        }
    }

    private static func targets(applicationID: Int64, _ targeting: TargetingRecord, afterHWID: String?, limit: Int,
                                on connection: SQLiteConnection) throws(SQLiteError) -> [TargetDevice] {
        if isOnlyFewDevices(targeting) {
            return try NamedDevices(applicationID: applicationID, hwids: targeting.hwids, on: connection)
                .targets(targeting.hwids, afterHWID: afterHWID, limit: limit)
        }
        let (clause, clauseValues) = SQLiteStore.targetingClause(targeting)
        let query = targetsQuery(explicit: !targeting.hwids.isEmpty, clause: clause)
        let values: [SQLValue] = [.int(applicationID), .text(afterHWID ?? ""), .int(Int64(limit))] + clauseValues
        let row = try connection.statement(query)
        try row.bind(values)
        defer { row.reset() }
        var targets: [TargetDevice] = []
        targets.reserveCapacity(min(limit, 1024))
        while try row.step() {
            targets.append(TargetDevice(hwid: row.text(0), pushToken: row.text(1), language: row.text(2), badge: row.int(3),
                                     deviceType: Int32(truncatingIfNeeded: row.int(4))))
        }
        return targets
    }

    /// The target selection with `clause` (from `targetingClause`).
    private static func targetsQuery(explicit: Bool, clause: String) -> String {
        // With explicit hwids, `+` keeps the cursor's range off the primary key, so that SQLite
        // looks up each named device (in hwid order, so ORDER BY costs nothing) instead of
        // walking every device of the application after the cursor and filtering: a message to
        // 10 devices of an application with a million used to read a million rows.
        let cursorTerm = explicit ? "+hwid > ?2" : "hwid > ?2"
        return """
            SELECT hwid, push_token, language, badge, device_type FROM devices
            WHERE app_id = ?1 AND \(cursorTerm) AND push_token <> '' AND push_token <> dead_token\(clause)
            ORDER BY hwid LIMIT ?3
            """
    }

    /// Whether two lists of hwids are the same, byte for byte (String's `==` is Unicode-canonical:
    /// a precomposed and a decomposed "é" are equal strings but two devices).
    static func sameBytes(_ a: [String], _ b: [String]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where compareBytes(x, y) != 0 { return false }
        return true
    }

    /// How `a` and `b` compare as SQLite compares text (by their UTF-8 bytes): negative, 0 or positive.
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var a = a, b = b  // native strings: no copy, `withUTF8` lends their bytes
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let order = memcmp(p, q, common)
                    if order != 0 { return Int(order) }
                }
                return x.count - y.count
            }
        }
    }

    /// Targetings that name at most this many devices and nothing else are read by
    /// `NamedDevices`.
    static let namedTargetsLimit = 128

    /// Whether `targeting` names a few devices and has no other criteria.
    private static func isOnlyFewDevices(_ targeting: TargetingRecord) -> Bool {
        !targeting.hwids.isEmpty && targeting.hwids.count <= namedTargetsLimit && targeting.userIDs.isEmpty
            && targeting.platforms.isEmpty && targeting.conditions.isEmpty
    }

    /// The targetable devices among some named hwids of one application, read with one
    /// statement, from which each message's targets are picked in memory.
    private struct NamedDevices {
        /// By the hwid's UTF-8 bytes: Swift's String equality is Unicode-canonical, SQLite's is
        /// byte for byte, and two hwids canonically equal are two devices.
        var devices: [Key: TargetDevice] = [:]

        /// An hwid, hashed and compared by its UTF-8 bytes as one block (a key holding an array
        /// of the bytes cost an allocation per lookup).
        struct Key: Hashable {
            var hwid: String
            func hash(into hasher: inout Hasher) {
                var hwid = hwid
                hwid.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            }
            static func == (a: Key, b: Key) -> Bool { SQLiteStore.compareBytes(a.hwid, b.hwid) == 0 }
        }

        /// Reads the devices of `hwids` that `targetsQuery` would select (registered, token not dead).
        init(applicationID: Int64, hwids: [String], on connection: SQLiteConnection) throws(SQLiteError) {
            // The hwids as one JSON array, so that the statement's text (and its prepared
            // statement) is the same for any number of them.
            var list: [UInt8] = [0x5B]
            list.reserveCapacity(2 + hwids.count * 32)
            for (index, hwid) in hwids.enumerated() {
                if index > 0 { list.append(0x2C) }
                JSONText.appendString(hwid, to: &list)
            }
            list.append(0x5D)
            let row = try connection.statement("""
                SELECT hwid, push_token, language, badge, device_type FROM devices
                WHERE app_id = ?1 AND hwid IN (SELECT value FROM json_each(?2)) AND push_token <> '' AND push_token <> dead_token
                """)
            try row.bind(1, applicationID)
            try row.bind(2, String(decoding: list, as: UTF8.self))
            defer { row.reset() }
            devices.reserveCapacity(hwids.count)
            while try row.step() {
                let device = TargetDevice(hwid: row.text(0), pushToken: row.text(1), language: row.text(2), badge: row.int(3),
                                     deviceType: Int32(truncatingIfNeeded: row.int(4)))
                devices[Key(hwid: device.hwid)] = device
            }
        }

        /// The targets among `hwids` as `targetsQuery` orders and limits them: hwid after
        /// `afterHWID` ("" without one), in SQLite's order (the UTF-8 bytes'), each once, at
        /// most `limit`.
        func targets(_ hwids: [String], afterHWID: String?, limit: Int) -> [TargetDevice] {
            var targets: [TargetDevice] = []
            targets.reserveCapacity(min(limit, hwids.count))
            // CreateMessage stores the hwids in byte order without repeats, and a first read has
            // no cursor: then they are taken as they are (sorting them was most of this). An empty
            // hwid is never a target (the cursor "" excludes it), so the slow path deals with it.
            if afterHWID == nil, !(hwids.first?.isEmpty ?? true),
               zip(hwids, hwids.dropFirst()).allSatisfy({ SQLiteStore.compareBytes($0, $1) < 0 }) {
                for hwid in hwids where targets.count < limit {
                    if let device = devices[Key(hwid: hwid)] { targets.append(device) }
                }
                return targets
            }
            let after = afterHWID ?? ""
            var names = hwids.filter { SQLiteStore.compareBytes(after, $0) < 0 }
            names.sort { SQLiteStore.compareBytes($0, $1) < 0 }
            var previous: String?
            for name in names where targets.count < limit {
                if let previous, SQLiteStore.compareBytes(previous, name) == 0 { continue }
                previous = name
                if let device = devices[Key(hwid: name)] { targets.append(device) }
            }
            return targets
        }
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

    public func target(applicationID: Int64, hwid: String) async throws(StoreError) -> TargetDevice? {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("SELECT hwid, push_token, language, badge, device_type FROM devices WHERE app_id = ?1 AND hwid = ?2")
                try row.bind(.int(applicationID), .text(hwid))
                defer { row.reset() }
                guard try row.step() else { return nil }
                return TargetDevice(hwid: row.text(0), pushToken: row.text(1), language: row.text(2), badge: row.int(3),
                                     deviceType: Int32(truncatingIfNeeded: row.int(4)))
            }
        }
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
        let leases = leases
        return try await writer.write(background: true) { connection throws(StoreError) in
            if try !SQLiteStore.underLease([step], leases)[0] { return [] }
            defer { if step.finish { leases.release([step.messageID], owner: nil) } }
            return try sql { () throws(SQLiteError) in
                var records = NewRecords()
                let ids = try SQLiteStore.apply(step, on: connection, records: &records)
                try records.insert(on: connection)
                return ids
            }
        }
    }

    public func recordFanOutSteps(_ steps: [FanOutStep]) async throws(StoreError) -> [[UInt64]] {
        for step in steps { try SQLiteStore.checkStillWithGateway(step) }
        // Built here, off the writer's thread: which steps only close a message whose every
        // device was sent (the usual last step of a small message), by how many were sent.
        var plain: [Int: [Int64]] = [:]
        var isPlain: [Bool] = []
        isPlain.reserveCapacity(steps.count)
        // Only when every step is another message's, so that the order of their writes cannot matter.
        let distinct = Set(steps.map(\.messageID)).count == steps.count
        for step in steps {
            let sent = distinct ? SQLiteStore.plainFinishSent(step) : nil
            if let sent { plain[sent, default: []].append(step.messageID) }
            isPlain.append(sent != nil)
        }
        let (plainBySent, plainSteps) = (plain, isPlain)
        // One writer job (one savepoint) for all of them, in the background: no caller waits on it.
        let leases = leases
        return try await writer.write(background: true) { connection throws(StoreError) in
            let allowed = try SQLiteStore.underLease(steps, leases)
            defer { leases.release(steps.filter(\.finish).map(\.messageID), owner: nil) }
            var plainBySent = plainBySent
            for (index, step) in steps.enumerated() where !allowed[index] {
                for sent in plainBySent.keys { plainBySent[sent]?.removeAll { $0 == step.messageID } }
            }
            return try sql { () throws(SQLiteError) in
                var ids: [[UInt64]] = []
                ids.reserveCapacity(steps.count)
                var records = NewRecords()
                for (index, (step, plain)) in zip(steps, plainSteps).enumerated() {
                    if !allowed[index] {
                        ids.append([])
                    } else if plain {
                        records.addPlatformCounts(step)
                        ids.append([])
                    } else {
                        ids.append(try SQLiteStore.apply(step, on: connection, records: &records))
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
    static func underLease(_ steps: [FanOutStep], _ leases: LeaseTable) throws(StoreError) -> [Bool] {
        var allowed: [Bool] = []
        allowed.reserveCapacity(steps.count)
        for step in steps {
            guard let lease = step.lease else {
                allowed.append(true)
                continue
            }
            let held = leases.take(step.messageID, lease, orTakeOver: step.startsSending)
            if !held && !step.startsSending {
                throw .leaseLost("message \(step.messageID) is held by another server")
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
        if last - first + 1 != UInt64(ids.count) || Set(ids).count != ids.count {
            throw .invalidChange("stillWithGateway of message \(step.messageID) is not the ids of one earlier step")
        }
    }

    /// How many devices `step` records as sent, when that is all it does: closes its message
    /// (no failures, retries, new records, badges, cursor or targets, nothing else open).
    static func plainFinishSent(_ step: FanOutStep) -> Int? {
        guard step.finish, !step.startsSending, step.stillWithGateway.isEmpty, step.handOver.isEmpty, step.badges.isEmpty,
              step.cursor == nil, step.targetedIncrement == 0, !step.results.isEmpty else { return nil }
        for result in step.results {
            guard case .sent = result.result else { return nil }
        }
        return step.results.count
    }

    /// What `apply` writes for each of `messageIDs` given a plain finishing step with `sent` devices
    /// sent (`plainFinishSent`), in one UPDATE for all of them: the last step of every small
    /// message was a statement of its own (reset, ten bindings, a VDBE program run).
    static func finishAllSent(_ messageIDs: [Int64], sent: Int, on connection: SQLiteConnection) throws(SQLiteError) {
        var list: [UInt8] = [0x5B]
        list.reserveCapacity(2 + messageIDs.count * 8)
        for (index, id) in messageIDs.enumerated() {
            if index > 0 { list.append(0x2C) }
            list.append(contentsOf: String(id).utf8)
        }
        list.append(0x5D)
        let update = try connection.statement(SQLiteStore.finishAllSentSQL)
        try update.bind(1, String(decoding: list, as: UTF8.self))
        try update.bind(2, Int64(sent))
        try update.run()
    }

    /// `apply`'s UPDATE for plain finishing steps (see `finishAllSent`).
    static let finishAllSentSQL: StaticString = """
        UPDATE messages SET sent = sent + ?2, status = 3, open_from = 0, open_to = -1
        WHERE id IN (SELECT value FROM json_each(?1))
        """

    /// The attempt records of one writer job, inserted together at its end: 256 to a statement
    /// whatever message they belong to, so that the few records of each of 64 small messages
    /// cost a few statement executions rather than 64 (a statement's execution costs about as
    /// much as ten of its rows). Their ids are chosen here, consecutive from one more than the
    /// largest (as SQLite would choose them: ids only grow, which the open range relies on), so
    /// that each step knows its records' ids before they are written.
    struct NewRecords {
        /// The id of the first record, once one was added.
        var firstID: Int64?
        var messageIDs: [Int64] = []
        var hwids: [String] = []
        var attempts: [Int64] = []

        /// Takes `count` more ids (`count` > 0) and returns the first.
        mutating func reserve(_ count: Int, on connection: SQLiteConnection) throws(SQLiteError) -> Int64 {
            let first: Int64
            if let firstID {
                first = firstID + Int64(messageIDs.count)
            } else {
                let max = try connection.statement("SELECT COALESCE(MAX(id), 0) FROM deliveries")
                defer { max.reset() }
                guard try max.step() else { throw SQLiteError(code: 1, message: "no MAX(id) row", context: "delivery ids") }
                first = max.int(0) + 1
                firstID = first
            }
            // No `reserveCapacity(count + …)` here: reserving exactly a little more on every step
            // reallocated and copied the arrays each time (64 small messages a job: 64 copies
            // of a growing array); appends grow them geometrically.
            return first
        }

        /// The per-platform counters of the job's steps, written by `insert` with one statement.
        var platformCounts: [(messageID: Int64, counts: PlatformCountRecord)] = []

        /// Adds what `step` adds to its message's per-platform counters.
        mutating func addPlatformCounts(_ step: FanOutStep) {
            for counts in step.platformCounts { platformCounts.append((step.messageID, counts)) }
        }

        /// Adds a record (its id is the next of those reserved).
        mutating func add(messageID: Int64, hwid: String, attempt: Int) {
            messageIDs.append(messageID)
            hwids.append(hwid)
            attempts.append(Int64(attempt))
        }

        /// Inserts every record added, and adds the per-platform counters.
        func insert(on connection: SQLiteConnection) throws(SQLiteError) {
            try SQLiteStore.writePlatformCounts(platformCounts, on: connection)
            guard let firstID else { return }
            // Every hwid's bytes in one buffer, bound without copies (a malloc and a copy in
            // SQLite per record otherwise), as `DeviceUpsert` does.
            var text: [UInt8] = []
            var ends: [Int] = []
            ends.reserveCapacity(hwids.count)
            for var hwid in hwids {
                hwid.withUTF8 { text.append(contentsOf: $0) }
                ends.append(text.count)
            }
            // (Array's withUnsafeBytes throws untyped errors: the typed one comes out as a value.)
            let failure = text.withUnsafeBytes { buffer -> SQLiteError? in
                var index = 0
                while index < messageIDs.count {
                    // Full chunks, then powers of two: few statement texts to prepare and cache,
                    // found by their size (hashing the text of 256 rows cost more than binding them).
                    var size = SQLiteStore.rowsPerInsert
                    while size > messageIDs.count - index { size /= 2 }
                    do throws(SQLiteError) {
                        let insert = try connection.statement(StatementKey(kind: ObjectIdentifier(NewRecords.self), variant: size)) {
                            SQLiteStore.multiRowInserts[size.trailingZeroBitCount]
                        }
                        // The bindings point into `buffer`: dropped before it goes.
                        defer { insert.reset() }
                        try insert.bind(1, firstID + Int64(index))
                        for row in 0..<size {
                            let record = index + row
                            let start = record == 0 ? 0 : ends[record - 1]
                            try insert.bind(Int32(3 * row + 2), messageIDs[record])
                            try insert.bindUnowned(Int32(3 * row + 3), UnsafeRawBufferPointer(rebasing: buffer[start..<ends[record]]))
                            try insert.bind(Int32(3 * row + 4), attempts[record])
                        }
                        try insert.run()
                    } catch {
                        return error
                    }
                    index += size
                }
                return nil
            }
            if let failure { throw failure }
        }
    }

    /// Adds the job's per-platform counters, all of them with one statement (a JSON array of
    /// `[message id, device type, targeted, sent, failed, invalid tokens]` rows): one statement
    /// per message and platform would double the statements a small message's steps execute.
    private static func writePlatformCounts(_ counts: [(messageID: Int64, counts: PlatformCountRecord)],
                                            on connection: SQLiteConnection) throws(SQLiteError) {
        if counts.isEmpty { return }
        var list: [UInt8] = [0x5B]
        list.reserveCapacity(2 + counts.count * 24)
        for (index, entry) in counts.enumerated() {
            if index > 0 { list.append(0x2C) }
            let c = entry.counts
            list.append(contentsOf: "[\(entry.messageID),\(c.deviceType),\(c.targeted),\(c.sent),\(c.failed),\(c.invalidTokens)]".utf8)
        }
        list.append(0x5D)
        // `WHERE true`: SQLite's parser needs it to read ON CONFLICT after a SELECT.
        let upsert = try connection.statement(SQLiteStore.platformCountsSQL)
        try upsert.bind(1, String(decoding: list, as: UTF8.self))
        try upsert.run()
    }

    /// `writePlatformCounts`' statement.
    static let platformCountsSQL: StaticString = """
            INSERT INTO message_platforms (message_id, device_type, targeted, sent, failed, invalid_tokens)
            SELECT value ->> 0, value ->> 1, SUM(value ->> 2), SUM(value ->> 3), SUM(value ->> 4), SUM(value ->> 5)
            FROM json_each(?1) WHERE true GROUP BY value ->> 0, value ->> 1
            ON CONFLICT (message_id, device_type) DO UPDATE SET targeted = targeted + excluded.targeted,
                sent = sent + excluded.sent, failed = failed + excluded.failed,
                invalid_tokens = invalid_tokens + excluded.invalid_tokens
        """

    /// Delivery records per multi-row INSERT (a power of two).
    static let rowsPerInsert = 256

    /// The multi-row INSERTs of 1, 2, 4 … `rowsPerInsert` records, by the power of two: `?1`
    /// is the first record's id (the others follow it), then each record's message id, hwid
    /// and attempt.
    static let multiRowInserts: [String] = (0...rowsPerInsert.trailingZeroBitCount).map { power in
        "INSERT INTO deliveries (id, message_id, hwid, attempt, state) VALUES "
            + (0..<(1 << power)).map { "(?1 + \($0), ?\(3 * $0 + 2), ?\(3 * $0 + 3), ?\(3 * $0 + 4), 0)" }.joined(separator: ", ")
    }

    /// A step's UPDATE of its message row (see `apply`).
    static let stepUpdateSQL: StaticString = """
        UPDATE messages SET sent = sent + ?2, failed = failed + ?3, invalid_tokens = invalid_tokens + ?4,
            targeted = targeted + ?5, cursor = COALESCE(?6, cursor),
            status = CASE WHEN ?7 THEN 3 WHEN ?10 THEN 2 ELSE status END, open_from = ?8, open_to = ?9
        WHERE id = ?1 AND (NOT ?10 OR status IN (1, 2))
        """

    /// Writes one step: the message row first (one UPDATE: counters, cursor, open range, status;
    /// for a first step only if the message is still scheduled or sending, else nothing is
    /// written and nothing handed over), then the outcomes and badge changes; its new attempt
    /// records are added to `records` (inserted at the end of the job).
    private static func apply(_ step: FanOutStep, on connection: SQLiteConnection,
                              records: inout NewRecords) throws(SQLiteError) -> [UInt64] {
        var sent: Int64 = 0, failed: Int64 = 0, invalid: Int64 = 0
        for result in step.results {
            switch result.result {
            case .sent: sent += 1
            case .failed(_, let invalidToken, _):
                failed += 1
                if invalidToken { invalid += 1 }
            case .retryPending: break
            }
        }
        let count = Int64(step.handOver.count)
        let firstID = count == 0 ? 0 : try records.reserve(step.handOver.count, on: connection)
        // The outcomes recorded here close the older records: the open range is now this batch's,
        // from the batch still with the gateway if there is one.
        // Those ids are consecutive (`checkStillWithGateway`): the range starts at the first.
        let stillFrom = step.stillWithGateway.min().map { Int64($0) }
        let openFrom = stillFrom ?? (count == 0 ? 0 : firstID)
        let openTo = count > 0 ? firstID + count - 1 : (stillFrom == nil ? -1 : Int64.max)
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
        try update.run()
        // Cancelled (or gone) before it started: nothing written, nothing to hand over.
        if step.startsSending, connection.changes == 0 { return [] }
        records.addPlatformCounts(step)

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
            case .failed(let reason, _, let deadToken):
                failuresByReason[reason, default: 0] += 1
                try setState().bind(.int(id), .int(DeliveryState.failed.rawValue), .text(reason)).run()
                if let deadToken {
                    try connection.statement("""
                        UPDATE devices SET dead_token = ?3 WHERE app_id = ?1 AND hwid = ?2 AND push_token = ?3
                        """)
                        .bind(.int(step.applicationID), .text(result.hwid), .text(deadToken)).run()
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
        for (offset, delivery) in step.handOver.enumerated() {
            if let replaced = delivery.replaces {
                try setState().bind(.int(Int64(replaced)), .int(DeliveryState.replaced.rawValue), .text("")).run()
            }
            records.add(messageID: step.messageID, hwid: delivery.hwid, attempt: delivery.attempt)
            ids.append(UInt64(firstID + Int64(offset)))
        }
        for (hwid, badge) in step.badges {
            try connection.statement("UPDATE devices SET badge = ?3 WHERE app_id = ?1 AND hwid = ?2")
                .bind(.int(step.applicationID), .text(hwid), .int(badge)).run()
        }
        return ids
    }
}
