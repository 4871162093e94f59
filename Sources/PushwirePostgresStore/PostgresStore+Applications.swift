import PushwireStore

extension PostgresStore {
    static let applicationColumns = """
        id, code, name, access_token_hash, apns_team_id, apns_key_id, apns_topic, apns_private_key, \
        apns_environment, categories_version, created_at, fcm_service_account
        """

    static func readApplication(_ rows: PGResult, _ row: Int) -> ApplicationRecord {
        let apns: APNsSettingsRecord? = rows.isNull(row, 4) ? nil : APNsSettingsRecord(
            teamID: rows.text(row, 4), keyID: rows.text(row, 5), topic: rows.text(row, 6), privateKeyP8: rows.text(row, 7),
            environment: Int32(truncatingIfNeeded: rows.int(row, 8)))
        return ApplicationRecord(
            id: rows.int(row, 0), code: rows.text(row, 1), name: rows.text(row, 2), accessTokenHash: rows.bytes(row, 3), apns: apns,
            fcmServiceAccount: rows.isNull(row, 11) ? nil : rows.text(row, 11),
            categoriesVersion: UInt64(bitPattern: rows.int(row, 9)), createdAt: rows.int(row, 10))
    }

    private static func apnsValues(_ apns: APNsSettingsRecord?) -> [String?] {
        guard let apns else { return [nil, nil, nil, nil, nil] }
        return [apns.teamID, apns.keyID, apns.topic, apns.privateKeyP8, String(apns.environment)]
    }

    public func createApplication(_ application: ApplicationRecord, initialCategories: [CategoryRecord]) async throws(StoreError) -> ApplicationRecord {
        try await write { [origin] connection throws(StoreError) in
            var created = application
            created.categoriesVersion = 1
            try pg { () throws(PGError) in
                let rows = try connection.query("""
                    INSERT INTO applications (code, name, access_token_hash, apns_team_id, apns_key_id, apns_topic,
                        apns_private_key, apns_environment, categories_version, created_at, fcm_service_account)
                    VALUES ($1, $2, $3::bytea, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id
                    """, [application.code, application.name, PGText.bytea(application.accessTokenHash)]
                        + PostgresStore.apnsValues(application.apns) + ["1", String(application.createdAt), application.fcmServiceAccount])
                created.id = rows.int(0, 0)
            }
            for category in initialCategories {
                _ = try PostgresStore.insertCategory(category, applicationID: created.id, on: connection)
            }
            try PGChangeFeed.notify(PGChangeFeed.application(origin: origin, id: created.id), on: connection)
            return created
        }
    }

    public func updateApplication(code: String, _ update: ApplicationUpdate) async throws(StoreError) -> ApplicationRecord {
        try await write { [origin] connection throws(StoreError) in
            let found = try pg { () throws(PGError) in
                try connection.query("SELECT \(PostgresStore.applicationColumns) FROM applications WHERE code = $1 FOR UPDATE", [code])
            }
            guard found.count > 0 else { throw .notFound("application \(code)") }
            var application = PostgresStore.readApplication(found, 0)
            if let name = update.name { application.name = name }
            if let apns = update.apns { application.apns = apns }
            if let hash = update.accessTokenHash { application.accessTokenHash = hash }
            if let fcm = update.fcmServiceAccount { application.fcmServiceAccount = fcm }
            try pg { () throws(PGError) in
                try connection.query("""
                    UPDATE applications SET name = $2, access_token_hash = $3::bytea, apns_team_id = $4, apns_key_id = $5,
                        apns_topic = $6, apns_private_key = $7, apns_environment = $8, fcm_service_account = $9
                    WHERE id = $1
                    """, [String(application.id), application.name, PGText.bytea(application.accessTokenHash)]
                        + PostgresStore.apnsValues(application.apns) + [application.fcmServiceAccount])
            }
            // The other servers read it again: its token hash and credentials are cached there.
            try PGChangeFeed.notify(PGChangeFeed.application(origin: origin, id: application.id), on: connection)
            return application
        }
    }

    public func listApplications() async throws(StoreError) -> [ApplicationRecord] {
        try await read { connection throws(StoreError) in
            let rows = try pg { () throws(PGError) in
                try connection.query("SELECT \(PostgresStore.applicationColumns) FROM applications ORDER BY id")
            }
            return (0..<rows.count).map { PostgresStore.readApplication(rows, $0) }
        }
    }
}
