import Foundation
import PushwireStore

extension SQLiteStore {
    public func upsertDevice(_ device: DeviceRecord, tags: [TagChange]) async throws(StoreError) {
        let now = Int64(Date().timeIntervalSince1970)
        try await writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                try connection.statement("""
                    INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                    ON CONFLICT (app_id, hwid) DO UPDATE SET push_token = excluded.push_token,
                        device_type = excluded.device_type, language = excluded.language, timezone = excluded.timezone,
                        user_id = excluded.user_id, app_version = excluded.app_version, updated_at = excluded.updated_at
                    """)
                    .bind(.int(device.applicationID), .text(device.hwid), .text(device.pushToken), .int(Int64(device.deviceType)),
                          .text(device.language), .int(Int64(device.timezone)), .text(device.userID), .text(device.appVersion),
                          .int(now))
                    .run()
            }
            guard !tags.isEmpty else { return }
            let before = try SQLiteStore.readTags(applicationID: device.applicationID, hwid: device.hwid, on: connection)
            for change in tags {
                try SQLiteStore.apply(change, applicationID: device.applicationID, hwid: device.hwid, on: connection)
            }
            try StoreLimits.checkTags(after: SQLiteStore.readTags(applicationID: device.applicationID, hwid: device.hwid, on: connection),
                                      before: before, hwid: device.hwid)
        }
    }

    public func upsertDevice(_ device: DeviceRecord, completion: @escaping @Sendable (StoreError?) -> Void) {
        writer.write(DeviceUpsert(device: device, completion: completion))
    }

    public func device(applicationID: Int64, hwid: String) async throws(StoreError) -> DeviceRecord? {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("""
                    SELECT push_token, device_type, language, timezone, user_id, app_version
                    FROM devices WHERE app_id = ?1 AND hwid = ?2
                    """)
                try row.bind(.int(applicationID), .text(hwid))
                defer { row.reset() }
                guard try row.step() else { return nil }
                return DeviceRecord(
                    applicationID: applicationID, hwid: hwid, pushToken: row.text(0),
                    deviceType: Int32(truncatingIfNeeded: row.int(1)), language: row.text(2),
                    timezone: Int32(truncatingIfNeeded: row.int(3)), userID: row.text(4), appVersion: row.text(5))
            }
        }
    }

    public func unregisterDevice(applicationID: Int64, hwid: String) async throws(StoreError) -> Bool {
        try await writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                try connection.statement("UPDATE devices SET push_token = '' WHERE app_id = ?1 AND hwid = ?2")
                    .bind(.int(applicationID), .text(hwid)).run()
                return connection.changes > 0
            }
        }
    }

    public func setBadge(applicationID: Int64, hwid: String, badge: Int64) async throws(StoreError) -> Bool {
        try await writer.write { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                try connection.statement("UPDATE devices SET badge = ?3 WHERE app_id = ?1 AND hwid = ?2")
                    .bind(.int(applicationID), .text(hwid), .int(badge)).run()
                return connection.changes > 0
            }
        }
    }

    public func updateTags(applicationID: Int64, hwid: String, _ changes: [TagChange]) async throws(StoreError) -> [TagRecord] {
        try await writer.write { connection throws(StoreError) in
            guard try SQLiteStore.deviceExists(applicationID: applicationID, hwid: hwid, on: connection) else {
                throw .notFound("device \(hwid)")
            }
            let before = try SQLiteStore.readTags(applicationID: applicationID, hwid: hwid, on: connection)
            for change in changes {
                try SQLiteStore.apply(change, applicationID: applicationID, hwid: hwid, on: connection)
            }
            let tags = try SQLiteStore.readTags(applicationID: applicationID, hwid: hwid, on: connection)
            try StoreLimits.checkTags(after: tags, before: before, hwid: hwid)
            return tags
        }
    }

    public func tags(applicationID: Int64, hwid: String) async throws(StoreError) -> [TagRecord]? {
        try read(snapshot: true) { connection throws(StoreError) in
            guard try SQLiteStore.deviceExists(applicationID: applicationID, hwid: hwid, on: connection) else { return nil }
            return try SQLiteStore.readTags(applicationID: applicationID, hwid: hwid, on: connection)
        }
    }

    static func deviceExists(applicationID: Int64, hwid: String, on connection: SQLiteConnection) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) in
            let row = try connection.statement("SELECT 1 FROM devices WHERE app_id = ?1 AND hwid = ?2")
            try row.bind(.int(applicationID), .text(hwid))
            defer { row.reset() }
            return try row.step()
        }
    }

    static func readTags(applicationID: Int64, hwid: String, on connection: SQLiteConnection) throws(StoreError) -> [TagRecord] {
        try sql { () throws(SQLiteError) in
            let row = try connection.statement("""
                SELECT name, kind, int_value, text_value FROM device_tags WHERE app_id = ?1 AND hwid = ?2 ORDER BY name
                """)
            try row.bind(.int(applicationID), .text(hwid))
            defer { row.reset() }
            var tags: [TagRecord] = []
            while try row.step() {
                if let value = TagCoding.decode(kind: row.int(1), int: row.int(2), text: row.text(3)) {
                    tags.append(TagRecord(name: row.text(0), value: value))
                }
            }
            return tags
        }
    }

    static func apply(_ change: TagChange, applicationID: Int64, hwid: String, on connection: SQLiteConnection) throws(StoreError) {
        switch change {
        case .set(let name, let value):
            try writeTag(name: name, value: value, applicationID: applicationID, hwid: hwid, on: connection)
        case .remove(let name):
            try sql { () throws(SQLiteError) in
                try connection.statement("DELETE FROM device_tags WHERE app_id = ?1 AND hwid = ?2 AND name = ?3")
                    .bind(.int(applicationID), .text(hwid), .text(name)).run()
            }
        case .increment(let name, let amount):
            let current: TagValueRecord? = try sql { () throws(SQLiteError) in
                let row = try connection.statement("""
                    SELECT kind, int_value, text_value FROM device_tags WHERE app_id = ?1 AND hwid = ?2 AND name = ?3
                    """)
                try row.bind(.int(applicationID), .text(hwid), .text(name))
                defer { row.reset() }
                guard try row.step() else { return nil }
                return TagCoding.decode(kind: row.int(0), int: row.int(1), text: row.text(2))
            }
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
                                 on connection: SQLiteConnection) throws(StoreError) {
        let (kind, int, text) = TagCoding.encode(value)
        try sql { () throws(SQLiteError) in
            try connection.statement("""
                INSERT INTO device_tags (app_id, hwid, name, kind, int_value, text_value) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (app_id, hwid, name) DO UPDATE SET kind = excluded.kind, int_value = excluded.int_value,
                    text_value = excluded.text_value
                """)
                .bind(.int(applicationID), .text(hwid), .text(name), .int(kind), int.map(SQLValue.int) ?? .null,
                      text.map(SQLValue.text) ?? .null)
                .run()
        }
    }
}

/// How a tag value is laid out in `device_tags`: a kind number and an integer or a text column.
enum TagCoding {
    static func encode(_ value: TagValueRecord) -> (kind: Int64, int: Int64?, text: String?) {
        switch value {
        case .string(let s): (1, nil, s)
        case .int(let i): (2, i, nil)
        case .bool(let b): (3, b ? 1 : 0, nil)
        case .list(let values): (4, nil, String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self))
        case .date(let d): (5, d, nil)
        }
    }

    static func decode(kind: Int64, int: Int64, text: String) -> TagValueRecord? {
        switch kind {
        case 1: .string(text)
        case 2: .int(int)
        case 3: .bool(int != 0)
        case 4: .list((try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? [])
        case 5: .date(int)
        default: nil
        }
    }
}
