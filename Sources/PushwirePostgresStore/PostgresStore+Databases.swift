import PushwireStore

/// Databases on a server, for tests and benchmarks that want an empty one each.
extension PostgresStore {
    /// Creates the database `name` (letters, digits and `_` only) on the server `url` points to.
    /// - Throws: `.invalidChange` for another name, `.cannotOpen` when the server refuses.
    public static func createDatabase(named name: String, using url: String) throws(StoreError) {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 == 0x5F || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw .invalidChange("a database name of lower-case letters, digits and _ is required, not \(name)")
        }
        do {
            let connection = try PGConnection(url: url, connectTimeout: PGWorker.connectTimeout)
            try connection.execute("CREATE DATABASE \(name)")
        } catch {
            throw .cannotOpen(location: redacted(url), reason: error.description)
        }
    }

    /// `url` with its database name replaced by `database` (its query, e.g. `sslmode`, kept).
    public static func url(_ url: String, database: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        return String(url[..<scheme.upperBound]) + authority + "/" + database + query
    }
}
