import PushwireStore

extension SQLiteStore {
    private static let applicationColumns = """
        id, code, name, access_token_hash, apns_team_id, apns_key_id, apns_topic, apns_private_key, \
        apns_environment, categories_version, created_at, fcm_service_account
        """

    static func readApplication(_ row: Statement) -> ApplicationRecord {
        let apns: APNsSettingsRecord? = row.isNull(4) ? nil : APNsSettingsRecord(
            teamID: row.text(4), keyID: row.text(5), topic: row.text(6), privateKeyP8: row.text(7),
            environment: Int32(truncatingIfNeeded: row.int(8)))
        return ApplicationRecord(
            id: row.int(0), code: row.text(1), name: row.text(2), accessTokenHash: row.blob(3), apns: apns,
            fcmServiceAccount: row.isNull(11) ? nil : row.text(11), categoriesVersion: UInt64(bitPattern: row.int(9)), createdAt: row.int(10))
    }

    static func application(code: String, on connection: SQLiteConnection) throws(StoreError) -> ApplicationRecord? {
        try sql { () throws(SQLiteError) in
            let row = try connection.statement("SELECT \(applicationColumns) FROM applications WHERE code = ?1")
            try row.bind(.text(code))
            defer { row.reset() }
            return try row.step() ? readApplication(row) : nil
        }
    }

    private static func apnsValues(_ apns: APNsSettingsRecord?) -> [SQLValue] {
        guard let apns else { return [.null, .null, .null, .null, .null] }
        return [.text(apns.teamID), .text(apns.keyID), .text(apns.topic), .text(apns.privateKeyP8), .int(Int64(apns.environment))]
    }

    public func createApplication(_ application: ApplicationRecord, initialCategories: [CategoryRecord]) async throws(StoreError) -> ApplicationRecord {
        try await writer.write { connection throws(StoreError) in
            var created = application
            created.categoriesVersion = 1
            try sql { () throws(SQLiteError) in
                try connection.statement("""
                    INSERT INTO applications (code, name, access_token_hash, apns_team_id, apns_key_id, apns_topic,
                        apns_private_key, apns_environment, categories_version, created_at, fcm_service_account)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                    """)
                    .bind([.text(application.code), .text(application.name), .blob(application.accessTokenHash)]
                        + SQLiteStore.apnsValues(application.apns)
                        + [.int(1), .int(application.createdAt), application.fcmServiceAccount.map(SQLValue.text) ?? .null])
                    .run()
                created.id = connection.lastInsertRowID
            }
            for category in initialCategories {
                _ = try SQLiteStore.insertCategory(category, applicationID: created.id, on: connection)
            }
            return created
        }
    }

    public func updateApplication(code: String, _ update: ApplicationUpdate) async throws(StoreError) -> ApplicationRecord {
        try await writer.write { connection throws(StoreError) in
            guard var application = try SQLiteStore.application(code: code, on: connection) else {
                throw .notFound("application \(code)")
            }
            if let name = update.name { application.name = name }
            if let apns = update.apns { application.apns = apns }
            if let hash = update.accessTokenHash { application.accessTokenHash = hash }
            if let fcm = update.fcmServiceAccount { application.fcmServiceAccount = fcm }
            try sql { () throws(SQLiteError) in
                try connection.statement("""
                    UPDATE applications SET name = ?2, access_token_hash = ?3, apns_team_id = ?4, apns_key_id = ?5,
                        apns_topic = ?6, apns_private_key = ?7, apns_environment = ?8, fcm_service_account = ?9
                    WHERE id = ?1
                    """)
                    .bind([.int(application.id), .text(application.name), .blob(application.accessTokenHash)]
                        + SQLiteStore.apnsValues(application.apns)
                        + [application.fcmServiceAccount.map(SQLValue.text) ?? .null])
                    .run()
            }
            return application
        }
    }

    public func listApplications() async throws(StoreError) -> [ApplicationRecord] {
        try read { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let row = try connection.statement("SELECT \(SQLiteStore.applicationColumns) FROM applications ORDER BY id")
                defer { row.reset() }
                var result: [ApplicationRecord] = []
                while try row.step() { result.append(SQLiteStore.readApplication(row)) }
                return result
            }
        }
    }
}
