import PushwireJSON

/// Writes the Prometheus text exposition format (version 0.0.4): one `# HELP` and `# TYPE` line
/// per family, then its samples, label values escaped as the format requires.
///
/// It writes UTF-8 bytes straight into one buffer: a scrape of a thousand series is a hundred
/// kilobytes, and building it from `String` pieces (interpolations, a scalar at a time for the
/// escapes, a `String` per number) cost several milliseconds of a busy loop's time.
public struct PrometheusText: Sendable {
    /// The exposition so far, as UTF-8.
    public private(set) var bytes: [UInt8] = []

    /// The text so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// An empty exposition.
    public init() {
        bytes.reserveCapacity(16 * 1024)
    }

    /// Starts a metric family: `type` is `counter`, `gauge`, `histogram` or `summary`.
    public mutating func family(_ name: String, _ type: String, help: String) {
        append("# HELP ")
        append(name)
        bytes.append(0x20)
        append(help)
        append("\n# TYPE ")
        append(name)
        bytes.append(0x20)
        append(type)
        bytes.append(0x0A)
    }

    /// One sample of the current family.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        startSample(name, labels)
        Self.write(value, into: &bytes)
        bytes.append(0x0A)
    }

    /// One sample with an integer value.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: UInt64) {
        startSample(name, labels)
        JSONText.appendDecimal(value, to: &bytes)
        bytes.append(0x0A)
    }

    /// A whole gauge family with one unlabelled sample.
    public mutating func gauge(_ name: String, help: String, _ value: Double) {
        family(name, "gauge", help: help)
        sample(name, [], value)
    }

    /// A whole counter family with one unlabelled sample (`name` ends in `_total`).
    public mutating func counter(_ name: String, help: String, _ value: UInt64) {
        family(name, "counter", help: help)
        sample(name, [], value)
    }

    private mutating func startSample(_ name: String, _ labels: [(String, String)]) {
        append(name)
        if !labels.isEmpty {
            bytes.append(UInt8(ascii: "{"))
            for (index, (key, labelValue)) in labels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                append(key)
                bytes.append(UInt8(ascii: "="))
                bytes.append(UInt8(ascii: "\""))
                appendEscaped(labelValue)
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(0x20)
    }

    private mutating func append(_ string: String) {
        var string = string
        // Native strings are contiguous UTF-8: one copy; a bridged one is made contiguous first.
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A label value with `\`, `"` and newlines escaped (the only escapes of the format).
    private mutating func appendEscaped(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            guard utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
                case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                default: bytes.append(byte)
                }
            }
        }
    }

    private static func write(_ value: Double, into out: inout [UInt8]) {
        if value >= 0, value < 1e15, value == value.rounded(.towardZero) {
            JSONText.appendDecimal(UInt64(value), to: &out)
        } else {
            out.append(contentsOf: format(value).utf8)
        }
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
