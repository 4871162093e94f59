#if canImport(Glibc)
import Glibc
#endif
import PushwireJSON
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
        let now = Self.wallClock()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.typicalLineBytes)
        Self.appendLine(to: &bytes, format, level: level, label: label, message: message, metadata: metadata,
                        timestamp: Self.timestamp(seconds: now.seconds, milliseconds: now.milliseconds))
        Self.output(bytes)
    }

    /// Logs `count` lines of one `message` at `level`, all with one write, each with the
    /// metadata `metadata(index, &line)` adds: the delivery summaries of a batch of small
    /// messages. One write for all (a `write(2)` each was most of what a summary cost); the head
    /// of the lines (time, level, label, message) formatted once, and counts written as digits
    /// without a `String` each (per line, those were most of the rest).
    public func log(_ level: Level, _ message: String, lines count: Int, _ metadata: (Int, inout LineMetadata) -> Void) {
        guard level >= self.level, count > 0 else { return }
        let now = Self.wallClock()
        var head: [UInt8] = []
        Self.appendHead(to: &head, format, level: level, label: label, message: message,
                        timestamp: Self.timestamp(seconds: now.seconds, milliseconds: now.milliseconds))
        var line = LineMetadata(format: format)
        line.bytes.reserveCapacity(Self.typicalLineBytes * count)
        for index in 0..<count {
            line.bytes.append(contentsOf: head)
            metadata(index, &line)
            line.end()
        }
        Self.output(line.bytes)
    }

    /// The metadata of a line being built, in order (`log(_:_:lines:_:)`).
    public struct LineMetadata {
        let format: Format
        var bytes: [UInt8] = []

        /// Adds `key` with a text `value`.
        public mutating func add(_ key: String, _ value: String) {
            appendKey(key)
            switch format {
            case .text: Logger.appendQuoted(&bytes, value)
            case .json: JSONText.appendString(value, to: &bytes)
            }
        }

        /// Adds `key` with a count, written as its decimal digits (as `String(value)` would be;
        /// a JSON string, as every metadata value is).
        public mutating func add(_ key: String, _ value: UInt64) {
            appendKey(key)
            if format == .json { bytes.append(UInt8(ascii: "\"")) }
            JSONText.appendDecimal(value, to: &bytes)
            if format == .json { bytes.append(UInt8(ascii: "\"")) }
        }

        /// ` key=` or `,"key":`.
        private mutating func appendKey(_ key: String) {
            switch format {
            case .text:
                bytes.append(UInt8(ascii: " "))
                Logger.appendUTF8(&bytes, key)
                bytes.append(UInt8(ascii: "="))
            case .json:
                bytes.append(UInt8(ascii: ","))
                // A key that would repeat one of the line's own would make the object ambiguous.
                JSONText.appendString(Logger.reservedJSONKeys.contains(key) ? "meta_" + key : key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
            }
        }

        /// Ends the line.
        mutating func end() {
            if format == .json { bytes.append(UInt8(ascii: "}")) }
            bytes.append(UInt8(ascii: "\n"))
        }
    }

    /// Room reserved per line (a delivery summary is ~140 bytes), so most lines are built without
    /// growing the buffer.
    private static let typicalLineBytes = 160

    /// Now, as seconds and milliseconds past the epoch.
    private static func wallClock() -> (seconds: Int, milliseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (Int(spec.tv_sec), Int(spec.tv_nsec / 1_000_000))
    }

    /// Writes whole lines to stderr, under the lock that keeps threads' lines apart.
    private static func output(_ bytes: [UInt8]) {
        outputLock.withLock { _ in
            // write(2) on fd 2 directly: unbuffered, so nothing is lost when the process exits.
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw -> Int in
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

    /// Appends one line, newline included, at `timestamp` (`timestamp(seconds:milliseconds:)`). Built as bytes:
    /// a delivery summary per message at info is a line per message under load, and built from
    /// interpolated `String`s (and `Character` scans of each value) it was 12 % of the delivery
    /// threads' time under a stream of CreateMessage calls. Every byte a value is escaped for is
    /// ASCII, which never occurs inside a multi-byte UTF-8 sequence, so escaping bytes escapes
    /// exactly the characters.
    static func appendLine<Pairs: Sequence>(to line: inout [UInt8], _ format: Format, level: Level, label: String, message: String,
                                            metadata: Pairs, timestamp: [UInt8]) where Pairs.Element == (key: String, value: String) {
        var built = LineMetadata(format: format, bytes: line)
        line = []  // one owner of the buffer while it grows: no copy
        appendHead(to: &built.bytes, format, level: level, label: label, message: message, timestamp: timestamp)
        for (key, value) in metadata { built.add(key, value) }
        built.end()
        line = built.bytes
    }

    /// What every line starts with: time, level, label and message.
    static func appendHead(to line: inout [UInt8], _ format: Format, level: Level, label: String, message: String, timestamp: [UInt8]) {
        switch format {
        case .text:
            line.append(contentsOf: timestamp)
            line.append(UInt8(ascii: " "))
            appendUTF8(&line, level.description)
            line.append(UInt8(ascii: " "))
            appendUTF8(&line, label)
            line.append(contentsOf: ": ".utf8)
            appendUTF8(&line, message)
        case .json:
            line.append(contentsOf: "{\"time\":\"".utf8)
            line.append(contentsOf: timestamp)
            line.append(contentsOf: "\",\"level\":\"".utf8)
            line.append(contentsOf: level.description.utf8)
            line.append(contentsOf: "\",\"label\":".utf8)
            JSONText.appendString(label, to: &line)
            line.append(contentsOf: ",\"message\":".utf8)
            JSONText.appendString(message, to: &line)
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

    /// Appends `string`'s UTF-8 bytes as one copy, as `appendQuoted` and `PrometheusText` do
    /// (appending its `utf8` view went through the view's generic copy, a third of a delivery
    /// summary line's cost); a bridged string is made contiguous first.
    @inline(__always)
    static func appendUTF8(_ line: inout [UInt8], _ string: String) {
        var string = string
        string.withUTF8 { line.append(contentsOf: $0) }
    }

    /// Values with spaces or quotes are quoted so a line stays machine-splittable.
    static func appendQuoted(_ line: inout [UInt8], _ value: String) {
        var value = value
        value.withUTF8 { bytes in
            if bytes.isEmpty {
                line.append(contentsOf: "\"\"".utf8)
                return
            }
            guard bytes.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\n") }) else {
                line.append(contentsOf: bytes)
                return
            }
            line.append(UInt8(ascii: "\""))
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): line.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): line.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): line.append(contentsOf: "\\n".utf8)
                default: line.append(byte)
                }
            }
            line.append(UInt8(ascii: "\""))
        }
    }

    /// The keys every JSON line has; metadata by these names is written as `meta_<name>`.
    static let reservedJSONKeys: Set<String> = ["time", "level", "label", "message"]

    /// `seconds` and `milliseconds` past the epoch as a line starts with them:
    /// `2026-11-29T21:05:03.123Z`.
    static func timestamp(seconds: Int, milliseconds: Int) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(24)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                line.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        line.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        line.append(UInt8(ascii: "."))
        digits(milliseconds, 3)
        line.append(UInt8(ascii: "Z"))
        return line
    }
}
