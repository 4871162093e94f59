import Foundation
import PushwireJSON
import PushwireStore

/// The fan-out's reads on SQLite: selecting targets by keyset pagination, one target by hwid.
extension SQLiteStore {
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
        a.count == b.count && zip(a, b).allSatisfy(ByteOrder.same)
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
        /// In the order of their hwids' UTF-8 bytes (SQLite's), as `targets` walks them beside
        /// the sorted hwids: a dictionary hashed every hwid twice, a third of this read's time.
        var devices: [TargetDevice] = []

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
            // Ordered by the primary key's probes of the IN list's sorted values: no sort.
            let row = try connection.statement("""
                SELECT hwid, push_token, language, badge, device_type FROM devices
                WHERE app_id = ?1 AND hwid IN (SELECT value FROM json_each(?2)) AND push_token <> '' AND push_token <> dead_token
                ORDER BY hwid
                """)
            try row.bind(1, applicationID)
            try row.bind(2, String(decoding: list, as: UTF8.self))
            defer { row.reset() }
            devices.reserveCapacity(hwids.count)
            while try row.step() {
                let device = TargetDevice(hwid: row.text(0), pushToken: row.text(1), language: row.text(2), badge: row.int(3),
                                     deviceType: Int32(truncatingIfNeeded: row.int(4)))
                devices.append(device)
            }
        }

        /// The targets among `hwids` as `targetsQuery` orders and limits them: hwid after
        /// `afterHWID` ("" without one), in SQLite's order (the UTF-8 bytes'), each once, at
        /// most `limit`.
        func targets(_ hwids: [String], afterHWID: String?, limit: Int) -> [TargetDevice] {
            var targets: [TargetDevice] = []
            targets.reserveCapacity(min(limit, hwids.count))
            // CreateMessage stores the hwids in byte order without repeats, and a first read has
            // no cursor: then `distinct` returns them as they are (sorting them was most of this).
            // An empty hwid is never a target (the cursor "" excludes it).
            let named = afterHWID == nil && !hwids.contains(where: \.isEmpty) ? hwids
                : hwids.filter { ByteOrder.precedes(afterHWID ?? "", $0) }
            var next = 0
            for hwid in ByteOrder.distinct(named) where targets.count < limit {
                var order = -1
                while next < devices.count {
                    order = ByteOrder.compare(devices[next].hwid, hwid)
                    if order >= 0 { break }
                    next += 1
                }
                if next < devices.count, order == 0 {
                    targets.append(devices[next])
                    next += 1
                }
            }
            return targets
        }
    }

    /// The SQL that narrows `devices` to the targeting (`TargetingClause`), with its values bound
    /// from `?4` on.
    static func targetingClause(_ targeting: TargetingRecord) -> (String, [SQLValue]) {
        var dialect = SQLiteTargetingDialect(after: 3)
        let clause = TargetingClause.build(targeting, &dialect)
        return (clause, dialect.values)
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

    public func tokenRefusal(applicationID: Int64, hwid: String) async throws(StoreError) -> RefusedToken? {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("""
                    SELECT dead_token, dead_token_state, dead_token_since_ms FROM devices
                    WHERE app_id = ?1 AND hwid = ?2 AND push_token <> '' AND push_token = dead_token
                    """)
                try row.bind(.int(applicationID), .text(hwid))
                defer { row.reset() }
                guard try row.step() else { return nil }
                return RefusedToken(token: row.text(0), state: RefusedToken.State(rawValue: row.int(1)) ?? .dead, sinceMS: row.int(2))
            }
        }
    }
}
