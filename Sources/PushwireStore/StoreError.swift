/// Why a store operation failed.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data directory or database file cannot be created or opened.
    case cannotOpen(path: String, reason: String)
    /// The database file is not a database or is damaged.
    case corrupt(path: String, reason: String)
    /// The data directory was written by a newer Pushwire whose schema this binary does not know.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// The application, device or category does not exist.
    case notFound(String)
    /// The category belongs to another application.
    case wrongApplication(String)
    /// A uniqueness rule was broken (e.g. two categories with one name).
    case conflict(String)
    /// The change is not possible on the stored data (e.g. incrementing a string tag).
    case invalidChange(String)
    /// The write would pass one of `StoreLimits` (tags per device, categories per application);
    /// nothing was changed.
    case limitReached(String)
    /// SQLite failed.
    case sqlite(SQLiteError)
    /// The store was closed.
    case closed

    /// What went wrong, for a person (startup errors are printed as is).
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open data directory \(path): \(reason)"
        case .corrupt(let path, let reason): "database \(path) is corrupt or not a Pushwire database: \(reason)"
        case .schemaTooNew(let path, let found, let supported):
            "database \(path) has schema version \(found), but this pushwired understands only up to version \(supported); use a newer pushwired"
        case .notFound(let what): "\(what) not found"
        case .wrongApplication(let what): "\(what) belongs to another application"
        case .conflict(let what): what
        case .invalidChange(let what): what
        case .limitReached(let what): what
        case .sqlite(let error): error.description
        case .closed: "the store is closed"
        }
    }
}
