#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A small logger shaped like apple/swift-log: levels trace…critical, key=value metadata, one line
/// per event on stderr:
/// `2026-11-29T21:05:03.123Z info pushwired: listening address=127.0.0.1:7355 threads=2`, or with
/// `.json` one object per line for log shippers:
/// `{"time":"2026-11-29T21:05:03.123Z","level":"info","label":"pushwired","message":"listening","address":"127.0.0.1:7355"}`.
public struct Logger: Sendable {
    /// How a line is written.
    public enum Format: String, Sendable, CaseIterable {
        /// `time level label: message key=value …`.
        case text
        /// One JSON object per line: `time`, `level`, `label`, `message`, then the metadata keys.
        case json
    }

    /// How severe an event is; events below the logger's level are dropped.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        /// Parses `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
            self = level
        }

        /// The level's name, as printed.
        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The component name printed after the level, e.g. `pushwired`.
    public var label: String
    /// The lowest level printed.
    public var level: Level
    /// Text or JSON lines.
    public var format: Format

    /// Creates a logger.
    public init(label: String, level: Level = .info, format: Format = .text) {
        self.label = label
        self.level = level
        self.format = format
    }

    // Lines from many threads must not interleave.
    private static let outputLock = Mutex<Void>(())

    /// Logs `message` with `metadata` at `level` if the logger's level lets it through.
    public func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard level >= self.level else { return }
        write(level, message(), metadata.lazy.map { (key: $0.key, value: $0.value) })
    }

    private func write<Pairs: Sequence>(_ level: Level, _ message: String, _ metadata: Pairs) where Pairs.Element == (key: String, value: String) {
        var line: String
        switch format {
        case .text:
            line = Self.timestamp()
            line += " \(level) \(label): \(message)"
            for (key, value) in metadata {
                line += " \(key)=\(Self.quoted(value))"
            }
        case .json:
            line = "{\"time\":\"\(Self.timestamp())\",\"level\":\"\(level)\",\"label\":\(Self.jsonString(label)),\"message\":\(Self.jsonString(message))"
            for (key, value) in metadata {
                // A key that would repeat one of the line's own would make the object ambiguous.
                let name = Self.reservedJSONKeys.contains(key) ? "meta_" + key : key
                line += ",\(Self.jsonString(name)):\(Self.jsonString(value))"
            }
            line += "}"
        }
        line += "\n"
        Self.outputLock.withLock { _ in
            // write(2) on fd 2 directly: unbuffered, so nothing is lost when the process exits.
            var bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    return Glibc.write(2, base + offset, raw.count - offset)
                }
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    break
                }
                offset += written
            }
        }
    }

    /// Logs `message` with `metadata` (in order) at `level`: for metadata built at run time.
    public func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: [(String, String)]) {
        guard level >= self.level else { return }
        write(level, message(), metadata.lazy.map { (key: $0.0, value: $0.1) })
    }

    /// Logs at `.trace`.
    public func trace(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.trace, message(), metadata) }
    /// Logs at `.debug`.
    public func debug(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.debug, message(), metadata) }
    /// Logs at `.info`.
    public func info(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.info, message(), metadata) }
    /// Logs at `.notice`.
    public func notice(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.notice, message(), metadata) }
    /// Logs at `.warning`.
    public func warning(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.warning, message(), metadata) }
    /// Logs at `.error`.
    public func error(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.error, message(), metadata) }
    /// Logs at `.critical`.
    public func critical(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.critical, message(), metadata) }

    /// Values with spaces or quotes are quoted so a line stays machine-splittable.
    private static func quoted(_ value: String) -> String {
        if value.isEmpty { return "\"\"" }
        guard value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" }) else { return value }
        var escaped = "\""
        for character in value {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped + "\""
    }

    /// The keys every JSON line has; metadata by these names is written as `meta_<name>`.
    static let reservedJSONKeys: Set<String> = ["time", "level", "label", "message"]

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `2026-11-29T21:05:03.123Z`.
    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(spec.tv_nsec / 1_000_000), 3))Z"
    }
}
