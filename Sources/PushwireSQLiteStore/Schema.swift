import PushwireStore

/// The store's schema, as an ordered list of migrations. Migration `n` (1-based) brings a database
/// from `PRAGMA user_version` n-1 to n. Append new migrations; never edit a released one.
enum Schema {
    static let migrations: [String] = [
        // 1: applications, devices, tags, categories.
        """
        CREATE TABLE applications (
            id INTEGER PRIMARY KEY,
            code TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            access_token_hash BLOB NOT NULL,
            apns_team_id TEXT,
            apns_key_id TEXT,
            apns_topic TEXT,
            apns_private_key TEXT,
            apns_environment INTEGER,
            categories_version INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE devices (
            app_id INTEGER NOT NULL,
            hwid TEXT NOT NULL,
            push_token TEXT NOT NULL,
            device_type INTEGER NOT NULL,
            language TEXT NOT NULL,
            timezone INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            app_version TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, hwid)
        ) WITHOUT ROWID;
        CREATE TABLE device_tags (
            app_id INTEGER NOT NULL,
            hwid TEXT NOT NULL,
            name TEXT NOT NULL,
            kind INTEGER NOT NULL,
            int_value INTEGER,
            text_value TEXT,
            PRIMARY KEY (app_id, hwid, name)
        ) WITHOUT ROWID;
        CREATE TABLE categories (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            app_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            buttons TEXT NOT NULL,
            UNIQUE (app_id, name)
        );
        """,
        // 2: messages (the outbox: a message is due when scheduled and its send time passed, or
        // when a crash left it sending), deliveries (one attempt record per device and attempt),
        // failure counts by reason, taps; per-device dead token and badge. `open_from…open_to` are
        // the ids of the one batch handed over whose outcomes are not recorded yet; a sent
        // delivery keeps state 0 (only failures and retries are rewritten), so a batch costs
        // inserts, not updates.
        """
        ALTER TABLE devices ADD COLUMN dead_token TEXT NOT NULL DEFAULT '';
        ALTER TABLE devices ADD COLUMN badge INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL,
            code TEXT NOT NULL UNIQUE,
            transaction_id TEXT NOT NULL,
            status INTEGER NOT NULL,
            send_at_ms INTEGER NOT NULL,
            category_id INTEGER NOT NULL,
            targeting TEXT NOT NULL,
            spec TEXT NOT NULL,
            cursor TEXT,
            open_from INTEGER NOT NULL DEFAULT 0,
            open_to INTEGER NOT NULL DEFAULT -1,
            targeted INTEGER NOT NULL DEFAULT 0,
            sent INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            invalid_tokens INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX messages_by_transaction ON messages (app_id, transaction_id) WHERE transaction_id <> '';
        CREATE INDEX messages_due ON messages (status, send_at_ms);
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL,
            hwid TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            state INTEGER NOT NULL,
            reason TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX deliveries_retry ON deliveries (message_id) WHERE state = 3;
        CREATE TABLE message_failures (
            message_id INTEGER NOT NULL,
            reason TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (message_id, reason)
        ) WITHOUT ROWID;
        CREATE TABLE taps (
            message_id INTEGER NOT NULL,
            hwid TEXT NOT NULL,
            kind INTEGER NOT NULL,
            button_id INTEGER NOT NULL,
            text_input TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (message_id, hwid, kind, button_id)
        ) WITHOUT ROWID;
        """,
        // 3: `messages_due` holds only the messages still to send (scheduled or sending). Every
        // write of a message row's status moved it in the full index (a delete and an insert),
        // twice per small message after it was done; finished and cancelled rows now leave it
        // once. Queries repeat the index's `status IN (1, 2)` term: SQLite uses a partial index
        // only when the query's WHERE contains that term as written.
        """
        DROP INDEX messages_due;
        CREATE INDEX messages_due ON messages (status, send_at_ms) WHERE status IN (1, 2);
        """,
        // 4: FCM credentials (a Firebase service account's JSON key file) per application, and a
        // message's counters per platform (device type), which GetMessageDetails shows beside the
        // totals kept in `messages`.
        """
        ALTER TABLE applications ADD COLUMN fcm_service_account TEXT;
        CREATE TABLE message_platforms (
            message_id INTEGER NOT NULL,
            device_type INTEGER NOT NULL,
            targeted INTEGER NOT NULL DEFAULT 0,
            sent INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            invalid_tokens INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (message_id, device_type)
        ) WITHOUT ROWID;
        """,
        // 5: the list of an application's messages (Messages/ListMessages, newest first) walks
        // this index from its cursor instead of scanning every application's messages.
        """
        CREATE INDEX messages_by_app ON messages (app_id, id);
        """,
        // 6: how the push service refused a device's dead token (1 dead: APNs 410, FCM
        // UNREGISTERED; 2 invalid: APNs BadDeviceToken, FCM INVALID_ARGUMENT) and since when (ms
        // since 1970: APNs' timestamp, else the time of the answer), which Messages/GetDevice
        // shows. Tokens refused before this version are dead since an unknown time (0).
        """
        ALTER TABLE devices ADD COLUMN dead_token_state INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE devices ADD COLUMN dead_token_since_ms INTEGER NOT NULL DEFAULT 0;
        """,
        // 7: the one platform whose counters a message's row holds (`RowPlatforms`): NULL until
        // a step counts something, -1 when `message_platforms` holds them instead. Earlier
        // rows that may still be counted (sending) or have counters in the table become -1;
        // the others (scheduled, or done with nothing counted) stay NULL, as a new row is.
        """
        ALTER TABLE messages ADD COLUMN platform_device_type INTEGER;
        UPDATE messages SET platform_device_type = -1 WHERE status = 2 OR id IN (SELECT message_id FROM message_platforms);
        """,
        // 8: a message's targeting and spec, written once and never changed, in a table of their
        // own. In the row they were 550 of its 640 bytes (six rows a page), and the row is
        // written three times (created, first step, last step), each time by another commit:
        // each commit wrote a WAL frame of the messages table for every six of its messages, a
        // frame for every two messages in all — half of all the frames a small message wrote,
        // each appended, synced and checkpointed. The row is now about 90 bytes.
        """
        CREATE TABLE message_bodies (
            message_id INTEGER PRIMARY KEY,
            targeting TEXT NOT NULL,
            spec TEXT NOT NULL
        );
        INSERT INTO message_bodies (message_id, targeting, spec) SELECT id, targeting, spec FROM messages;
        ALTER TABLE messages DROP COLUMN targeting;
        ALTER TABLE messages DROP COLUMN spec;
        """,
    ]

    /// The newest schema version this binary understands.
    static var currentVersion: Int { migrations.count }

    /// Brings the database to `currentVersion`, each migration in its own transaction.
    /// - Throws: `.schemaTooNew` when the file was written by a newer binary.
    static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        let found: Int
        do {
            found = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
        } catch {
            throw SQLiteStore.classify(error, path: connection.path)
        }
        if found > currentVersion {
            throw .schemaTooNew(location: connection.path, found: found, supported: currentVersion)
        }
        for version in found..<currentVersion {
            do {
                try connection.execute("BEGIN IMMEDIATE")
                try connection.execute(migrations[version])
                try connection.execute("PRAGMA user_version = \(version + 1)")
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw SQLiteStore.classify(error, path: connection.path)
            }
        }
    }
}
