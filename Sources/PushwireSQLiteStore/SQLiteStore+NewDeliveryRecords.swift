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

    /// Adds the job's per-platform counters, `platformRowsPerUpsert` rows to a statement (then
    /// powers of two), each row bound as integers. One statement per message and platform would
    /// double the statements a small message's steps execute; one statement reading a JSON array
    /// of all of them (as this was) cost more than the rest of the job's writes together: every
    /// `->>` parsed its row again, and the GROUP BY sorted them. A key that comes twice needs no
    /// grouping: SQLite applies the rows of one INSERT in order, so the second updates the first.
    static func writePlatformCounts(_ counts: [(messageID: Int64, counts: PlatformCountRecord)],
                                    on connection: SQLiteConnection) throws(SQLiteError) {
        try forEachPowerOfTwoRun(count: counts.count, largest: platformRowsPerUpsert) { (index, size) throws(SQLiteError) in
            let upsert = try connection.statement(StatementKey(kind: ObjectIdentifier(PlatformCountRecord.self), variant: size)) {
                SQLiteStore.platformCountUpserts[size.trailingZeroBitCount]
            }
            for row in 0..<size {
                let (messageID, c) = counts[index + row]
                let first = Int32(6 * row + 1)
                try upsert.bind(first, messageID)
                try upsert.bind(first + 1, Int64(c.deviceType))
                try upsert.bind(first + 2, Int64(clamping: c.targeted))
                try upsert.bind(first + 3, Int64(clamping: c.sent))
                try upsert.bind(first + 4, Int64(clamping: c.failed))
                try upsert.bind(first + 5, Int64(clamping: c.invalidTokens))
            }
            try upsert.run()
        }
    }

    /// Calls `body(start, size)` for consecutive runs of `count` rows: runs of `largest` (a power
    /// of two), then of each smaller power of two the rest needs, so that a statement prepared once
    /// per size (log2(largest) + 1 of them) serves any number of rows.
    static func forEachPowerOfTwoRun(count: Int, largest: Int,
                                     _ body: (_ start: Int, _ size: Int) throws(SQLiteError) -> Void) throws(SQLiteError) {
        var start = 0
        while start < count {
            var size = largest
            while size > count - start { size /= 2 }
            try body(start, size)
            start += size
        }
    }

    /// Per-platform counter rows per multi-row upsert (a power of two).
    static let platformRowsPerUpsert = 64

    /// `writePlatformCounts`' upserts of 1, 2, 4 … `platformRowsPerUpsert` rows, by the power of
    /// two: each row's message id, device type, targeted, sent, failed and invalid tokens.
    static let platformCountUpserts: [String] = (0...platformRowsPerUpsert.trailingZeroBitCount).map { power in
        "INSERT INTO message_platforms (message_id, device_type, targeted, sent, failed, invalid_tokens) VALUES "
            + (0..<(1 << power)).map { row in "(" + (1...6).map { "?\(6 * row + $0)" }.joined(separator: ", ") + ")" }
                .joined(separator: ", ")
            + """
             ON CONFLICT (message_id, device_type) DO UPDATE SET targeted = targeted + excluded.targeted,
                sent = sent + excluded.sent, failed = failed + excluded.failed,
                invalid_tokens = invalid_tokens + excluded.invalid_tokens
            """
    }

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
