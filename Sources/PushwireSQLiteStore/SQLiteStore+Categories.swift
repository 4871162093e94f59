import Foundation
import PushwireStore

extension SQLiteStore {
    static func insertCategory(_ category: CategoryRecord, applicationID: Int64, on connection: SQLiteConnection) throws(StoreError) -> CategoryRecord {
        var stored = category
        try sql { () throws(SQLiteError) in
            try connection.statement("INSERT INTO categories (app_id, name, buttons) VALUES (?1, ?2, ?3)")
                .bind(.int(applicationID), .text(category.name), .text(encodeButtons(category.buttons)))
                .run()
            stored.id = UInt32(truncatingIfNeeded: connection.lastInsertRowID)
        }
        return stored
    }

    static func encodeButtons(_ buttons: [ButtonRecord]) -> String {
        String(decoding: (try? JSONEncoder().encode(buttons)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func decodeButtons(_ text: String) -> [ButtonRecord] {
        (try? JSONDecoder().decode([ButtonRecord].self, from: Data(text.utf8))) ?? []
    }

    private static func categoryCount(applicationID: Int64, on connection: SQLiteConnection) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) in
            let row = try connection.statement("SELECT count(*) FROM categories WHERE app_id = ?1")
            try row.bind(.int(applicationID))
            defer { row.reset() }
            return try row.step() ? Int(row.int(0)) : 0
        }
    }

    /// Checks that the category exists and belongs to the application.
    private static func checkOwner(categoryID: UInt32, applicationID: Int64, on connection: SQLiteConnection) throws(StoreError) {
        let owner: Int64? = try sql { () throws(SQLiteError) in
            let row = try connection.statement("SELECT app_id FROM categories WHERE id = ?1")
            try row.bind(.int(Int64(categoryID)))
            defer { row.reset() }
            return try row.step() ? row.int(0) : nil
        }
        guard let owner else { throw .notFound("category \(categoryID)") }
        guard owner == applicationID else { throw .wrongApplication("category \(categoryID)") }
    }

    /// Bumps the version; `.notFound` for an unknown application (the job's savepoint then
    /// undoes what it wrote before).
    private static func bumpVersion(applicationID: Int64, on connection: SQLiteConnection) throws(StoreError) -> UInt64 {
        let bumped: UInt64? = try sql { () throws(SQLiteError) -> UInt64? in
            let row = try connection.statement("""
                UPDATE applications SET categories_version = categories_version + 1 WHERE id = ?1 RETURNING categories_version
                """)
            try row.bind(.int(applicationID))
            defer { row.reset() }
            guard try row.step() else { return nil }
            let version = UInt64(bitPattern: row.int(0))
            while try row.step() {}
            return version
        }
        guard let bumped else { throw .notFound("application \(applicationID)") }
        return bumped
    }

    public func upsertCategory(applicationID: Int64, _ category: CategoryRecord) async throws(StoreError) -> (CategoryRecord, UInt64) {
        try await writer.write { connection throws(StoreError) -> (CategoryRecord, UInt64) in
            var stored = category
            if category.id == 0 {
                let count = try SQLiteStore.categoryCount(applicationID: applicationID, on: connection)
                if count >= StoreLimits.maxCategoriesPerApplication {
                    throw .limitReached("""
                        the application has \(count) categories, the most it may hold (\(StoreLimits.maxCategoriesPerApplication)): \
                        delete one or replace one by its category_id
                        """)
                }
                stored = try SQLiteStore.insertCategory(category, applicationID: applicationID, on: connection)
            } else {
                try SQLiteStore.checkOwner(categoryID: category.id, applicationID: applicationID, on: connection)
                try sql { () throws(SQLiteError) in
                    try connection.statement("UPDATE categories SET name = ?2, buttons = ?3 WHERE id = ?1")
                        .bind(.int(Int64(category.id)), .text(category.name), .text(SQLiteStore.encodeButtons(category.buttons)))
                        .run()
                }
            }
            let version = try SQLiteStore.bumpVersion(applicationID: applicationID, on: connection)
            return (stored, version)
        }
    }

    public func deleteCategory(applicationID: Int64, categoryID: UInt32) async throws(StoreError) -> UInt64 {
        try await writer.write { connection throws(StoreError) in
            try SQLiteStore.checkOwner(categoryID: categoryID, applicationID: applicationID, on: connection)
            try sql { () throws(SQLiteError) in
                try connection.statement("DELETE FROM categories WHERE id = ?1").bind(.int(Int64(categoryID))).run()
            }
            return try SQLiteStore.bumpVersion(applicationID: applicationID, on: connection)
        }
    }

    public func categories(applicationID: Int64) async throws(StoreError) -> CategorySet {
        try read(snapshot: true) { connection throws(StoreError) in
            try sql { () throws(SQLiteError) in
                let versionRow = try connection.statement("SELECT categories_version FROM applications WHERE id = ?1")
                try versionRow.bind(.int(applicationID))
                let version = try versionRow.step() ? UInt64(bitPattern: versionRow.int(0)) : 0
                versionRow.reset()
                let row = try connection.statement("SELECT id, name, buttons FROM categories WHERE app_id = ?1 ORDER BY id")
                try row.bind(.int(applicationID))
                defer { row.reset() }
                var categories: [CategoryRecord] = []
                while try row.step() {
                    categories.append(CategoryRecord(id: UInt32(truncatingIfNeeded: row.int(0)), name: row.text(1),
                                                     buttons: SQLiteStore.decodeButtons(row.text(2))))
                }
                return CategorySet(categories: categories, version: version)
            }
        }
    }
}
