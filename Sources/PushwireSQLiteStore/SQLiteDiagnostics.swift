import CSQLite
import Synchronization

/// What SQLite reports about the database (a log recovered at open, corruption found, an I/O
/// error) and what the engine itself reports, sent to the handler `pushwired` installs (its
/// logger). Without it these went nowhere: 64 overwritten bytes of log lost acknowledged devices
/// with no line written, and corrupt pages answered "sqlite error 11" alone (issue 16).
public enum SQLiteDiagnostics {
    /// How much a report matters.
    public enum Level: Sendable, Equatable {
        /// Expected but worth a line (a log recovered at open).
        case notice
        /// Something to look at (the log busy at close, SQLite's warnings).
        case warning
        /// Damage or a failure (corruption, I/O errors).
        case error
    }

    private static let handler = Mutex<(@Sendable (Level, String) -> Void)?>(nil)
    private static let configured = Mutex(false)

    /// Sends SQLite's reports and the engine's to `handler` (level and a message naming SQLite's
    /// code), from whatever thread made them; it must be quick. Call it before the first store is
    /// opened: SQLite takes its log callback only before it initializes.
    /// - Returns: false when SQLite would not take the callback (it was already initialized):
    ///   the engine's own reports still reach `handler`, SQLite's do not.
    @discardableResult
    public static func install(_ handler: @escaping @Sendable (Level, String) -> Void) -> Bool {
        Self.handler.withLock { $0 = handler }
        return configured.withLock { configured in
            if configured { return true }
            configured = pushwire_sqlite_config_log({ _, code, message in
                SQLiteDiagnostics.report(code: code, message: message.map { String(cString: $0) } ?? "")
            }, nil) == SQLITE_OK
            return configured
        }
    }

    /// The level of a report with SQLite's (extended) result code, or nil for those that are
    /// part of normal work and would only be noise: a constraint broken (a name taken, answered
    /// as a conflict) and a statement recompiled after a schema change.
    static func level(code: Int32) -> Level? {
        switch code & 0xFF {
        case SQLITE_CONSTRAINT, SQLITE_SCHEMA, SQLITE_OK, SQLITE_ROW, SQLITE_DONE: nil
        case SQLITE_NOTICE: .notice
        case SQLITE_WARNING, SQLITE_BUSY, SQLITE_LOCKED: .warning
        default: .error
        }
    }

    /// Hands one report to the handler, when there is one and its code is worth a line.
    static func report(code: Int32, message: String) {
        guard let level = level(code: code), let handler = handler.withLock({ $0 }) else { return }
        handler(level, "sqlite: \(message) (code \(code))")
    }
}
