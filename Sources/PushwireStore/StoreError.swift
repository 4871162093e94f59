/// Why a store operation failed, the same whatever the engine (SQLite in a data directory, a
/// database server): engines map their own failures onto these cases, and the service maps these
/// cases onto wire statuses in one place (`StoreErrorMapping.swift`). No engine's error type
/// appears here; an engine's own code and message go into the text of the case.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    // Startup: the store cannot be opened. `location` is where it was looked for (a data
    // directory or file, a database URL without its password).

    /// The store cannot be created or opened (no permission, not a directory, no such database,
    /// already in use by another process).
    case cannotOpen(location: String, reason: String)
    /// What is there is not a Pushwire store, or is damaged.
    case corrupt(location: String, reason: String)
    /// A newer Pushwire wrote the store, with a schema this binary does not know.
    case schemaTooNew(location: String, found: Int, supported: Int)

    // Domain: the request does not fit the stored data. Nothing was changed.

    /// The application, device, category or message does not exist.
    case notFound(String)
    /// The category belongs to another application.
    case wrongApplication(String)
    /// A uniqueness rule was broken (e.g. two categories with one name).
    case conflict(String)
    /// The change is not possible on the stored data (e.g. incrementing a string tag), or the
    /// call broke a precondition of its requirement.
    case invalidChange(String)
    /// The write would pass one of `StoreLimits` (tags per device, categories per application);
    /// nothing was changed.
    case limitReached(String)
    /// A fan-out step was not under its message's lease: another server took the message over
    /// (`MessageLease`). Nothing was written; the step's fan-out must stop.
    case leaseLost(String)

    // Engine failures: the request may be fine; the store could not carry it out. A write that
    // fails with one of these was not acknowledged, and wrote nothing.

    /// The engine cannot serve now but may later: the database is unreachable or busy, a
    /// connection was lost, the disk failed a sync. Retrying later may succeed.
    case unavailable(String)
    /// No room to write: the disk, the file system's quota or the database's storage is full.
    case storageFull(String)
    /// The engine found stored data damaged (a corrupt page, a checksum mismatch): something
    /// acknowledged earlier may be lost.
    case dataLoss(String)
    /// Any other failure of the engine, with its own description.
    case internalError(String)
    /// The store was closed (the server is stopping).
    case closed

    /// What went wrong, for a person (startup errors are printed as is).
    public var description: String {
        switch self {
        case .cannotOpen(let location, let reason): "cannot open the store at \(location): \(reason)"
        case .corrupt(let location, let reason): "the store at \(location) is corrupt or not a Pushwire store: \(reason)"
        case .schemaTooNew(let location, let found, let supported):
            "the store at \(location) has schema version \(found), but this pushwired understands only up to version \(supported); use a newer pushwired"
        case .notFound(let what): "\(what) not found"
        case .wrongApplication(let what): "\(what) belongs to another application"
        case .conflict(let what): what
        case .invalidChange(let what): what
        case .limitReached(let what): what
        case .leaseLost(let what): "the lease was lost: \(what)"
        case .unavailable(let what): "the store is unavailable: \(what)"
        case .storageFull(let what): "the store is out of space: \(what)"
        case .dataLoss(let what): "the store found damaged data: \(what)"
        case .internalError(let what): "store failure: \(what)"
        case .closed: "the store is closed"
        }
    }
}
