import Foundation
import PushwireStore

extension PostgresStore {
    public func upsertDevice(_ device: DeviceRecord, tags: [TagChange]) async throws(StoreError) {
        let now = Int64(Date().timeIntervalSince1970)
        // A device that existed may be cached by another server (its fingerprint): tell them.
        // `xmax` is not 0 exactly for a row ON CONFLICT updated rather than inserted.
        let changed = PGChangeFeed.devices(origin: origin, applicationID: device.applicationID, hwids: [device.hwid])
        _ = try await writeDevice(applicationID: device.applicationID, hwid: device.hwid) { connection throws(StoreError) -> Bool in
            try pg { () throws(PGError) in
                try connection.query("""
                    WITH up AS (
                        INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at)
                        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                        ON CONFLICT (app_id, hwid) DO UPDATE SET push_token = excluded.push_token,
                            device_type = excluded.device_type, language = excluded.language, timezone = excluded.timezone,
                            user_id = excluded.user_id, app_version = excluded.app_version, updated_at = excluded.updated_at
                        RETURNING xmax::text <> '0' AS existed)
                    SELECT pg_notify('\(PGChangeFeed.channel)', $10) FROM up WHERE existed
                    """, [String(device.applicationID), device.hwid, device.pushToken, String(device.deviceType), device.language,
                          String(device.timezone), device.userID, device.appVersion, String(now), changed])
            }
            guard !tags.isEmpty else { return true }
            // The upsert holds the device's row lock to COMMIT, so no other server changes its
            // tags between this count and this write (StoreLimits: checked inside the write).
            let before = try PostgresStore.readTags(applicationID: device.applicationID, hwid: device.hwid, on: connection)
            for change in tags {
                try PostgresStore.apply(change, applicationID: device.applicationID, hwid: device.hwid, on: connection)
            }
            try StoreLimits.checkTags(after: PostgresStore.readTags(applicationID: device.applicationID, hwid: device.hwid, on: connection),
                                      before: before, hwid: device.hwid)
            return true
        }
    }

    public func upsertDevice(_ device: DeviceRecord, completion: @escaping @Sendable (StoreError?) -> Void) {
        submitRegistration(DeviceUpsertJob(device: device, origin: origin, completion: completion))
    }

    public func device(applicationID: Int64, hwid: String) async throws(StoreError) -> DeviceRecord? {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("""
                    SELECT push_token, device_type, language, timezone, user_id, app_version
                    FROM devices WHERE app_id = $1 AND hwid = $2
                    """, [String(applicationID), hwid])
            }
            guard rows.count > 0 else { return nil }
            return DeviceRecord(
                applicationID: applicationID, hwid: hwid, pushToken: rows.text(0, 0),
                deviceType: Int32(truncatingIfNeeded: rows.int(0, 1)), language: rows.text(0, 2),
                timezone: Int32(truncatingIfNeeded: rows.int(0, 3)), userID: rows.text(0, 4), appVersion: rows.text(0, 5))
        }
    }

    public func unregisterDevice(applicationID: Int64, hwid: String) async throws(StoreError) -> Bool {
        let changed = PGChangeFeed.devices(origin: origin, applicationID: applicationID, hwids: [hwid])
        return try await writeDevice(applicationID: applicationID, hwid: hwid) { connection throws(StoreError) in
            // One statement: the update and, when it found the device, the other servers told.
            try pg { () throws(PGError) in
                try connection.query("""
                    WITH cleared AS (UPDATE devices SET push_token = '' WHERE app_id = $1 AND hwid = $2 RETURNING 1)
                    SELECT pg_notify('\(PGChangeFeed.channel)', $3) FROM cleared
                    """, [String(applicationID), hwid, changed]).count > 0
            }
        }
    }

    public func setBadge(applicationID: Int64, hwid: String, badge: Int64) async throws(StoreError) -> Bool {
        try await writeDevice(applicationID: applicationID, hwid: hwid) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                try connection.query("UPDATE devices SET badge = $3 WHERE app_id = $1 AND hwid = $2",
                                     [String(applicationID), hwid, String(badge)]).changes > 0
            }
        }
    }

    public func updateTags(applicationID: Int64, hwid: String, _ changes: [TagChange]) async throws(StoreError) -> [TagRecord] {
        let changed = PGChangeFeed.devices(origin: origin, applicationID: applicationID, hwids: [hwid])
        return try await writeDevice(applicationID: applicationID, hwid: hwid) { connection throws(StoreError) in
            // FOR UPDATE: the device's row lock, held to COMMIT, keeps another server's tag
            // write from passing the limits together with this one.
            guard try PostgresStore.deviceExists(applicationID: applicationID, hwid: hwid, on: connection, locking: true) else {
                throw .notFound("device \(hwid)")
            }
            let before = try PostgresStore.readTags(applicationID: applicationID, hwid: hwid, on: connection)
            for change in changes {
                try PostgresStore.apply(change, applicationID: applicationID, hwid: hwid, on: connection)
            }
            let tags = try PostgresStore.readTags(applicationID: applicationID, hwid: hwid, on: connection)
            try StoreLimits.checkTags(after: tags, before: before, hwid: hwid)
            try PGChangeFeed.notify(changed, on: connection)
            return tags
        }
    }

    public func tags(applicationID: Int64, hwid: String) async throws(StoreError) -> [TagRecord]? {
        try await read(snapshot: true) { connection throws(StoreError) -> [TagRecord]? in
            guard try PostgresStore.deviceExists(applicationID: applicationID, hwid: hwid, on: connection) else { return nil }
            return try PostgresStore.readTags(applicationID: applicationID, hwid: hwid, on: connection)
        }
    }

    /// Whether the device is stored; `locking` takes its row lock until COMMIT.
    static func deviceExists(applicationID: Int64, hwid: String, on connection: PGConnection,
                             locking: Bool = false) throws(StoreError) -> Bool {
        try pg { () throws(PGError) in
            try connection.query("SELECT 1 FROM devices WHERE app_id = $1 AND hwid = $2" + (locking ? " FOR UPDATE" : ""),
                                 [String(applicationID), hwid]).count > 0
        }
    }

    static func readTags(applicationID: Int64, hwid: String, on connection: PGConnection) throws(StoreError) -> [TagRecord] {
        let rows = try pg { () throws(PGError) in
            try connection.query("""
                SELECT name, kind, int_value, text_value FROM device_tags WHERE app_id = $1 AND hwid = $2 ORDER BY name
                """, [String(applicationID), hwid])
        }
        var tags: [TagRecord] = []
        for row in 0..<rows.count {
            if let value = PostgresCoding.decodeTag(kind: rows.int(row, 1), int: rows.int(row, 2), text: rows.text(row, 3)) {
                tags.append(TagRecord(name: rows.text(row, 0), value: value))
            }
        }
        return tags
    }

    static func apply(_ change: TagChange, applicationID: Int64, hwid: String, on connection: PGConnection) throws(StoreError) {
        switch change {
        case .set(let name, let value):
            try writeTag(name: name, value: value, applicationID: applicationID, hwid: hwid, on: connection)
        case .remove(let name):
            try pg { () throws(PGError) in
                try connection.query("DELETE FROM device_tags WHERE app_id = $1 AND hwid = $2 AND name = $3",
                                     [String(applicationID), hwid, name])
            }
        case .increment(let name, let amount):
            let rows = try pg { () throws(PGError) in
                try connection.query("""
                    SELECT kind, int_value, text_value FROM device_tags WHERE app_id = $1 AND hwid = $2 AND name = $3
                    """, [String(applicationID), hwid, name])
            }
            let current = rows.count > 0
                ? PostgresCoding.decodeTag(kind: rows.int(0, 0), int: rows.int(0, 1), text: rows.text(0, 2)) : nil
            let base: Int64
            switch current {
            case nil: base = 0
            case .int(let value)?: base = value
            case .some: throw .invalidChange("tag \(name) is not an integer and cannot be incremented")
            }
            let (sum, overflow) = base.addingReportingOverflow(amount)
            if overflow { throw .invalidChange("incrementing tag \(name) overflows a 64-bit integer") }
            try writeTag(name: name, value: .int(sum), applicationID: applicationID, hwid: hwid, on: connection)
        }
    }

    private static func writeTag(name: String, value: TagValueRecord, applicationID: Int64, hwid: String,
                                 on connection: PGConnection) throws(StoreError) {
        let (kind, int, text) = PostgresCoding.encodeTag(value)
        try pg { () throws(PGError) in
            try connection.query("""
                INSERT INTO device_tags (app_id, hwid, name, kind, int_value, text_value) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (app_id, hwid, name) DO UPDATE SET kind = excluded.kind, int_value = excluded.int_value,
                    text_value = excluded.text_value
                """, [String(applicationID), hwid, name, String(kind), int.map { String($0) }, text])
        }
    }
}
