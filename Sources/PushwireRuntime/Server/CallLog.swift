import PushwireWire

/// One `debug` line per call: method, status, duration, peer, and the application the call acted
/// for. It exists only while the server's logger lets `debug` through (`ServerShared.callLog` is
/// nil otherwise), so with the log at `info` the cost per call is one nil check: the clock is not
/// read and nothing is copied.
///
/// `describe` (set by the services with `Server.describeCalls`) names the application from the
/// call's metadata and request (a bearer token's application, or the request's application code);
/// it never returns a secret, and the line never holds metadata or request bytes.
final class CallLog: Sendable {
    /// What is known of a call when it starts, kept until it is answered. A class, so that an
    /// `InFlightCall` holds one pointer for it (nil when the log is off), not its fields.
    final class Entry: Sendable {
        let method: String
        let startedAt: UInt64
        let application: String?

        init(method: String, startedAt: UInt64, application: String?) {
            self.method = method
            self.startedAt = startedAt
            self.application = application
        }
    }

    /// Names the application of a call: (method path, metadata, request message) → code.
    typealias Describe = @Sendable (String, [(key: String, value: String)], [UInt8]) -> String?

    private let logger: Logger
    private let describe: Describe?

    init(logger: Logger, describe: Describe?) {
        self.logger = logger
        self.describe = describe
    }

    /// The entry of a call starting now.
    func start(method: String, metadata: [Metadata], message: [UInt8]) -> Entry {
        let application = describe?(method, metadata.map { (key: $0.key, value: $0.value) }, message)
        return Entry(method: method, startedAt: monotonicNanos(), application: application)
    }

    /// Logs the call's line.
    func finish(_ entry: Entry, status: StatusCode, peer: SocketAddress) {
        let micros = (monotonicNanos() &- entry.startedAt) / 1_000
        logger.log(.debug, "call", [("method", entry.method), ("status", status.name), ("duration_us", String(micros)),
                                    ("peer", peer.description), ("application", entry.application ?? "-")])
    }
}
