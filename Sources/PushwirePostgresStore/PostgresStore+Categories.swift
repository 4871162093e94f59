import PushwireStore

extension PostgresStore {
    static func insertCategory(_ category: CategoryRecord, applicationID: Int64, on connection: PGConnection) throws(StoreError) -> CategoryRecord {
        var stored = category
        try pg { () throws(PGError) in
            let rows = try connection.query("INSERT INTO categories (app_id, name, buttons) VALUES ($1, $2, $3) RETURNING id",
                                            [String(applicationID), category.name, PostgresCoding.encodeButtons(category.buttons)])
            stored.id = UInt32(truncatingIfNeeded: rows.int(0, 0))
        }
        return stored
    }

    /// Checks that the category exists and belongs to the application.
    private static func checkOwner(categoryID: UInt32, applicationID: Int64, on connection: PGConnection) throws(StoreError) {
        let rows = try pg { () throws(PGError) in
            try connection.query("SELECT app_id FROM categories WHERE id = $1", [String(categoryID)])
        }
        guard rows.count > 0 else { throw .notFound("category \(categoryID)") }
        guard rows.int(0, 0) == applicationID else { throw .wrongApplication("category \(categoryID)") }
    }

    /// Bumps the application's categories version and tells the other servers (delivered at
    /// COMMIT, with the version it committed).
    private static func bumpVersion(applicationID: Int64, origin: String, on connection: PGConnection) throws(StoreError) -> UInt64 {
        let rows = try pg { () throws(PGError) in
            try connection.query("""
                UPDATE applications SET categories_version = categories_version + 1 WHERE id = $1 RETURNING categories_version
                """, [String(applicationID)])
        }
        guard rows.count > 0 else { throw .notFound("application \(applicationID)") }
        let version = UInt64(bitPattern: rows.int(0, 0))
        try PGChangeFeed.notify(PGChangeFeed.categories(origin: origin, applicationID: applicationID, version: version), on: connection)
        return version
    }

    public func upsertCategory(applicationID: Int64, _ category: CategoryRecord) async throws(StoreError) -> (CategoryRecord, UInt64) {
        let (stored, version) = try await write { [origin] connection throws(StoreError) -> CategoryUpsertResult in
            var stored = category
            if category.id == 0 {
                // The application's row lock (to COMMIT) makes the count and the insert one step
                // for every server sharing the database (StoreLimits: checked inside the write).
                // Two statements: the count's snapshot is taken after the lock is held.
                let count = try pg { () throws(PGError) -> Int? in
                    guard try connection.query("SELECT 1 FROM applications WHERE id = $1 FOR UPDATE", [String(applicationID)]).count > 0 else {
                        return nil
                    }
                    return Int(try connection.query("SELECT count(*) FROM categories WHERE app_id = $1", [String(applicationID)]).int(0, 0))
                }
                guard let count else { throw .notFound("application \(applicationID)") }
                if count >= StoreLimits.maxCategoriesPerApplication {
                    throw .limitReached("""
                        the application has \(count) categories, the most it may hold (\(StoreLimits.maxCategoriesPerApplication)): \
                        delete one or replace one by its category_id
                        """)
                }
                stored = try PostgresStore.insertCategory(category, applicationID: applicationID, on: connection)
            } else {
                try PostgresStore.checkOwner(categoryID: category.id, applicationID: applicationID, on: connection)
                try pg { () throws(PGError) in
                    try connection.query("UPDATE categories SET name = $2, buttons = $3 WHERE id = $1",
                                         [String(category.id), category.name, PostgresCoding.encodeButtons(category.buttons)])
                }
            }
            return CategoryUpsertResult(category: stored, version: try PostgresStore.bumpVersion(applicationID: applicationID, origin: origin, on: connection))
        }.pair
        return (stored, version)
    }

    public func deleteCategory(applicationID: Int64, categoryID: UInt32) async throws(StoreError) -> UInt64 {
        try await write { [origin] connection throws(StoreError) in
            try PostgresStore.checkOwner(categoryID: categoryID, applicationID: applicationID, on: connection)
            try pg { () throws(PGError) in
                try connection.query("DELETE FROM categories WHERE id = $1", [String(categoryID)])
            }
            return try PostgresStore.bumpVersion(applicationID: applicationID, origin: origin, on: connection)
        }
    }

    public func categories(applicationID: Int64) async throws(StoreError) -> CategorySet {
        try await read(snapshot: true) { connection throws(StoreError) in
            try pg { () throws(PGError) in
                let versionRows = try connection.query("SELECT categories_version FROM applications WHERE id = $1", [String(applicationID)])
                let version = versionRows.count > 0 ? UInt64(bitPattern: versionRows.int(0, 0)) : 0
                let rows = try connection.query("SELECT id, name, buttons FROM categories WHERE app_id = $1 ORDER BY id",
                                                [String(applicationID)])
                let categories = (0..<rows.count).map { row in
                    CategoryRecord(id: UInt32(truncatingIfNeeded: rows.int(row, 0)), name: rows.text(row, 1),
                                   buttons: PostgresCoding.decodeButtons(rows.text(row, 2)))
                }
                return CategorySet(categories: categories, version: version)
            }
        }
    }
}

/// A category with its version, as one Sendable value (a tuple is not one for generics here).
struct CategoryUpsertResult: Sendable {
    var category: CategoryRecord
    var version: UInt64
    var pair: (CategoryRecord, UInt64) { (category, version) }
}
