import Foundation
import PushwireStore

/// One device's registration (`PostgresStore.upsertDevice(_:completion:)`), written together
/// with the adjacent registrations of the writer's batch as one statement (`DeviceUpsertGroup`).
final class DeviceUpsertJob: PGJob, Sendable {
    let device: DeviceRecord
    /// The writing store's origin in the change feed (`PGChangeFeed`).
    let origin: String
    let completion: @Sendable (StoreError?) -> Void

    init(device: DeviceRecord, origin: String, completion: @escaping @Sendable (StoreError?) -> Void) {
        self.device = device
        self.origin = origin
        self.completion = completion
    }

    func run(on connection: PGConnection) throws(StoreError) {
        try DeviceUpsertGroup([self]).run(on: connection)
    }

    func complete(_ error: StoreError?) { completion(error) }
}

/// Adjacent registrations as one multi-row upsert: the rows go as nine arrays (one prepared
/// statement whatever their number), and the upsert's `WHERE` leaves a row that already holds
/// exactly these values alone, so re-registering an unchanged device writes nothing.
///
/// PostgreSQL refuses a statement that changes one row twice, so of two registrations of one
/// device (compared byte for byte) only the later is written: the same end state as applying
/// them in order. Both callers hear back after COMMIT.
struct DeviceUpsertGroup: PGUnit {
    let writes: [DeviceUpsertJob]

    init(_ writes: [DeviceUpsertJob]) { self.writes = writes }

    var jobCount: Int { writes.count }

    /// The upsert, and in the same statement (so in its transaction, delivered at its COMMIT)
    /// the change feed's notifications (`PGChangeFeed`) of the devices that existed and changed:
    /// another server may hold their fingerprints. New devices (`xmax` 0: inserted, not updated
    /// by ON CONFLICT) and unchanged ones (left alone by the `WHERE`, so not returned) send
    /// nothing, so registering new devices costs no notification. `$10` is the store's origin.
    static let sql = """
        WITH up AS (
            INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at)
            SELECT app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, $9
            FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $5::text[], $6::integer[], $7::text[], $8::text[])
                AS r (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version)
            ON CONFLICT (app_id, hwid) DO UPDATE SET push_token = excluded.push_token,
                device_type = excluded.device_type, language = excluded.language, timezone = excluded.timezone,
                user_id = excluded.user_id, app_version = excluded.app_version, updated_at = excluded.updated_at
            WHERE (devices.push_token, devices.device_type, devices.language, devices.timezone, devices.user_id, devices.app_version)
                IS DISTINCT FROM
                (excluded.push_token, excluded.device_type, excluded.language, excluded.timezone, excluded.user_id, excluded.app_version)
            RETURNING app_id, hwid, xmax::text <> '0' AS existed),
        changed AS (
            SELECT app_id, hwid, (row_number() OVER (PARTITION BY app_id) - 1) / \(PGChangeFeed.devicesPerNotification) AS chunk
            FROM up WHERE existed)
        SELECT pg_notify('\(PGChangeFeed.channel)',
            $10 || ' d ' || app_id || ' ' || string_agg(encode(convert_to(hwid, 'UTF8'), 'hex'), ' '))
        FROM changed GROUP BY app_id, chunk
        """

    func run(on connection: PGConnection) throws(StoreError) {
        // The last registration of each device, in the order of first appearance.
        var last: [DeviceKey: Int] = [:]
        var order: [DeviceKey] = []
        for (index, write) in writes.enumerated() {
            let key = DeviceKey(applicationID: write.device.applicationID, hwid: ByteOrder.Key(write.device.hwid))
            if last.updateValue(index, forKey: key) == nil { order.append(key) }
        }
        // In key order (bytes, as the "C" collation orders them): groups committing side by
        // side (several registration writers, several servers) take shared rows' locks in one
        // order, so they wait for each other rather than deadlock.
        let devices = order.compactMap { last[$0] }.map { writes[$0].device }.sorted { a, b in
            a.applicationID != b.applicationID ? a.applicationID < b.applicationID : ByteOrder.precedes(a.hwid, b.hwid)
        }
        let now = String(Int64(Date().timeIntervalSince1970))
        try pg { () throws(PGError) in
            try connection.query(DeviceUpsertGroup.sql, [
                PGBinary.intArray(devices.map(\.applicationID)),
                PGBinary.textArray(devices.map(\.hwid)),
                PGBinary.textArray(devices.map(\.pushToken)),
                PGBinary.int32Array(devices.map { Int64($0.deviceType) }),
                PGBinary.textArray(devices.map(\.language)),
                PGBinary.int32Array(devices.map { Int64($0.timezone) }),
                PGBinary.textArray(devices.map(\.userID)),
                PGBinary.textArray(devices.map(\.appVersion)),
                .text(now),
                .text(writes.first?.origin ?? ""),
            ])
        }
    }

    func complete(_ error: StoreError?) {
        for write in writes { write.complete(error) }
    }

    /// A device of the batch: its application and its hwid compared by bytes.
    private struct DeviceKey: Hashable {
        let applicationID: Int64
        let hwid: ByteOrder.Key
    }
}
