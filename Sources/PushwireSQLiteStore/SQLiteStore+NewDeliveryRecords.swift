import Foundation
import PushwireStore

/// A fan-out writer job's new attempt records and per-platform counters on SQLite, inserted
/// together at the job's end (`SQLiteStore+FanOutSteps.swift` writes the steps themselves).
extension SQLiteStore {
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
    static func writePlatformCounts(_ counts: [(messageID: Int64, counts: PlatformCountRecord)],
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
}
