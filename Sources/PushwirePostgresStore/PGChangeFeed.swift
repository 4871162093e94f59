import PushwireStore

/// The change feed's messages on PostgreSQL: every write that changes something another server
/// may cache sends a notification on `channel` (`pg_notify`, inside the writing transaction, so
/// PostgreSQL delivers it only once that transaction commits, and in commit order), which every
/// server's `PGListener` receives and turns back into `StoreChange`s.
///
/// A payload is text: the writing store's origin (so that a server skips its own changes, which
/// its caller already applied), a kind, and its values, separated by spaces:
/// - `<origin> a <application id>`: an application created or updated;
/// - `<origin> c <application id> <version>`: its categories changed, to `version`;
/// - `<origin> d <application id> <hwid hex> …`: existing devices changed (hwids in hex, so that
///   no byte of one can be taken for a separator).
/// PostgreSQL limits a payload to 8000 bytes: devices go in chunks of `devicesPerNotification`.
enum PGChangeFeed {
    /// The channel every server LISTENs on.
    static let channel = "pushwire_changes"

    /// Devices per notification: 24 of the longest hwids (128 bytes, 256 in hex) and their
    /// application ids stay well under PostgreSQL's 8000-byte payload limit.
    static let devicesPerNotification = 24

    /// A fresh origin for a store object: 16 hex digits.
    static func newOrigin() -> String {
        let value = UInt64.random(in: 0...UInt64.max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The payload of an application's creation or update.
    static func application(origin: String, id: Int64) -> String { "\(origin) a \(id)" }

    /// The payload of a categories change that committed `version`.
    static func categories(origin: String, applicationID: Int64, version: UInt64) -> String {
        "\(origin) c \(applicationID) \(version)"
    }

    /// The payload of one application's changed devices (at most `devicesPerNotification`).
    static func devices(origin: String, applicationID: Int64, hwids: [String]) -> String {
        var text = "\(origin) d \(applicationID)"
        for hwid in hwids {
            text += " "
            text += hex(hwid)
        }
        return text
    }

    /// The SQL of `SELECT pg_notify(channel, $n)`, for a write's own statement.
    static func notifySQL(parameter: Int) -> String { "SELECT pg_notify('\(channel)', $\(parameter))" }

    /// Sends `payload` in the connection's open transaction (delivered when it commits).
    static func notify(_ payload: String, on connection: PGConnection) throws(StoreError) {
        try pg { () throws(PGError) in try connection.query(notifySQL(parameter: 1), [payload]) }
    }

    /// The change a payload describes, with the origin that sent it; nil for a payload that is
    /// not one of ours (another program may notify on the channel): it is ignored.
    static func decode(_ payload: String) -> (origin: String, change: StoreChange)? {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 3, let applicationID = Int64(fields[2]) else { return nil }
        let origin = String(fields[0])
        switch fields[1] {
        case "a" where fields.count == 3:
            return (origin, .application(id: applicationID))
        case "c" where fields.count == 4:
            guard let version = UInt64(fields[3]) else { return nil }
            return (origin, .categories(applicationID: applicationID, version: version))
        case "d":
            var hwids: [String] = []
            for field in fields.dropFirst(3) {
                guard let hwid = unhex(field) else { return nil }
                hwids.append(hwid)
            }
            return (origin, .devices(applicationID: applicationID, hwids: hwids))
        default:
            return nil
        }
    }

    /// The hwid's UTF-8 bytes in lowercase hex (as PostgreSQL's `encode(…, 'hex')` writes them).
    static func hex(_ text: String) -> String { PGText.hex(text.utf8) }

    /// The text whose UTF-8 bytes `digits` spells in hex; nil when it is not hex of valid UTF-8.
    static func unhex(_ digits: Substring) -> String? {
        guard !digits.isEmpty, let bytes = PGText.unhex(digits.utf8) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
