import Foundation
import PushwireStore

/// One device's registration (`SQLiteStore.upsertDevice(_:completion:)`), written together with
/// the adjacent registrations of the writer's batch as one multi-row upsert.
///
/// The upsert's `WHERE` leaves an identical row alone: re-registering an unchanged device that
/// the caller could not tell apart from a new one (no fingerprint yet, e.g. after a restart)
/// writes nothing, without a read before the write. Two registrations of one hwid in a group
/// are applied in order, as separate statements would be (SQLite runs a statement's rows in
/// VALUES order, and the second conflicts with the first).
///
/// A class: the writer holds it as `any MergeableWrite`, which then stores one reference (a
/// struct this size would be boxed anyway), and gathering a group for `run` retains each write
/// once instead of copying five strings and a closure.
final class DeviceUpsert: MergeableWrite {
    let device: DeviceRecord
    let completion: @Sendable (StoreError?) -> Void

    init(device: DeviceRecord, completion: @escaping @Sendable (StoreError?) -> Void) {
        self.device = device
        self.completion = completion
    }

    /// Powers of two up to the usual batch (64 in flight): any run is at most 7 statements, and
    /// the 7 prepared variants stay cached on the writer's connection.
    static let groupSizes = [64, 32, 16, 8, 4, 2]

    static let columns = 9

    static func run(_ writes: ArraySlice<DeviceUpsert>, on connection: SQLiteConnection) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let statement = try connection.statement(StatementKey(kind: ObjectIdentifier(DeviceUpsert.self), variant: writes.count)) {
                upsertSQL(rows: writes.count)
            }
            let now = Int64(Date().timeIntervalSince1970)
            // Every text value of the statement in one buffer, bound without copies: one
            // allocation per statement instead of a malloc and a copy in SQLite per value.
            var text: [UInt8] = []
            text.reserveCapacity(writes.reduce(0) { $0 + $1.textBytes })
            for write in writes {
                let device = write.device
                text.append(contentsOf: device.hwid.utf8)
                text.append(contentsOf: device.pushToken.utf8)
                text.append(contentsOf: device.language.utf8)
                text.append(contentsOf: device.userID.utf8)
                text.append(contentsOf: device.appVersion.utf8)
            }
            // (Array's withUnsafeBytes throws untyped errors: the typed one comes out as a value.)
            let failure = text.withUnsafeBytes { buffer -> SQLiteError? in
                // The bindings point into `buffer`: drop them before it goes.
                defer { statement.reset() }
                do throws(SQLiteError) {
                    try bind(writes, text: buffer, now: now, to: statement)
                    try statement.run()
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
        }
    }

    /// Binds each write's row in turn; `text` holds the rows' text values back to back, in the
    /// order the loop reads them.
    private static func bind(_ writes: ArraySlice<DeviceUpsert>, text: UnsafeRawBufferPointer, now: Int64,
                             to statement: Statement) throws(SQLiteError) {
        var offset = 0
        func next(_ count: Int) -> UnsafeRawBufferPointer {
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: text[offset ..< offset + count])
        }
        var base: Int32 = 0
        for write in writes {
            let device = write.device
            try statement.bind(base + 1, device.applicationID)
            try statement.bindUnowned(base + 2, next(device.hwid.utf8.count))
            try statement.bindUnowned(base + 3, next(device.pushToken.utf8.count))
            try statement.bind(base + 4, Int64(device.deviceType))
            try statement.bindUnowned(base + 5, next(device.language.utf8.count))
            try statement.bind(base + 6, Int64(device.timezone))
            try statement.bindUnowned(base + 7, next(device.userID.utf8.count))
            try statement.bindUnowned(base + 8, next(device.appVersion.utf8.count))
            try statement.bind(base + 9, now)
            base += Int32(columns)
        }
    }

    func complete(_ error: StoreError?) { completion(error) }

    private var textBytes: Int {
        device.hwid.utf8.count + device.pushToken.utf8.count + device.language.utf8.count
            + device.userID.utf8.count + device.appVersion.utf8.count
    }

    /// `INSERT … VALUES (?1…?9), (?10…?18), … ON CONFLICT … DO UPDATE … WHERE <a field changed>`.
    static func upsertSQL(rows: Int) -> String {
        let values = (0 ..< rows).map { row in
            "(" + (1 ... columns).map { "?\(row * columns + $0)" }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
        return """
            INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at)
            VALUES \(values)
            ON CONFLICT (app_id, hwid) DO UPDATE SET push_token = excluded.push_token,
                device_type = excluded.device_type, language = excluded.language, timezone = excluded.timezone,
                user_id = excluded.user_id, app_version = excluded.app_version, updated_at = excluded.updated_at
            WHERE push_token IS NOT excluded.push_token OR device_type IS NOT excluded.device_type
                OR language IS NOT excluded.language OR timezone IS NOT excluded.timezone
                OR user_id IS NOT excluded.user_id OR app_version IS NOT excluded.app_version
            """
    }
}
