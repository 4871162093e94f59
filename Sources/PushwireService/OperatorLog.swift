import PushwireRuntime
import Synchronization

/// Where the services write what an operator wants to read: admin actions at `notice` with who
/// did them, delivery summaries at `info`. Silent until the process hands it a logger (`use`),
/// so in-process tests and tools log nothing. Never given a secret: tokens and keys are named by
/// the application they belong to, never written.
public final class OperatorLog: Sendable {
    private let logger = Mutex<Logger?>(nil)

    /// Creates a silent log.
    public init() {}

    /// Writes to `logger` from now on.
    public func use(_ logger: Logger) {
        self.logger.withLock { $0 = logger }
    }

    /// Whether a line at `level` would be written, so that callers skip building one.
    public func enabled(_ level: Logger.Level) -> Bool {
        logger.withLock { $0.map { level >= $0.level } ?? false }
    }

    /// Logs an admin action at `notice`: `message` with `by` (`admin`, or the acting
    /// application's code) first, then `metadata`.
    func action(_ message: String, by actor: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard let logger = logger.withLock({ $0 }) else { return }
        var pairs: [(String, String)] = [("by", actor)]
        pairs += metadata.map { ($0.key, $0.value) }
        logger.log(.notice, message, pairs)
    }

    /// Logs `count` lines of `message` at `level` with one write, each with the metadata
    /// `metadata(index, &line)` adds (`Logger.log(_:_:lines:_:)`).
    func log(_ level: Logger.Level, _ message: String, lines count: Int, _ metadata: (Int, inout Logger.LineMetadata) -> Void) {
        guard let logger = logger.withLock({ $0 }) else { return }
        logger.log(level, message, lines: count, metadata)
    }
}
