/// Writes the Prometheus text exposition format (version 0.0.4): one `# HELP` and `# TYPE` line
/// per family, then its samples, label values escaped as the format requires.
public struct PrometheusText: Sendable {
    /// The text so far.
    public private(set) var text = ""

    /// An empty exposition.
    public init() {}

    /// Starts a metric family: `type` is `counter`, `gauge` or `histogram`.
    public mutating func family(_ name: String, _ type: String, help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample of the current family.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (index, (key, labelValue)) in labels.enumerated() {
                if index > 0 { text += "," }
                text += key
                text += "=\""
                Self.escape(labelValue, into: &text)
                text += "\""
            }
            text += "}"
        }
        text += " "
        text += Self.format(value)
        text += "\n"
    }

    /// One sample with an integer value.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: UInt64) {
        sample(name, labels, Double(value))
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

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func escape(_ value: String, into out: inout String) {
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
    }
}
