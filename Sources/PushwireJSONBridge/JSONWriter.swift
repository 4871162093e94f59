/// Serializes a `JSONValue`, compact or indented by two spaces, keys in their stored order.
enum JSONWriter {
    static func write(_ value: JSONValue, pretty: Bool) -> String {
        var out = ""
        write(value, pretty: pretty, indent: 0, to: &out)
        return out
    }

    private static func write(_ value: JSONValue, pretty: Bool, indent: Int, to out: inout String) {
        let newline = pretty ? "\n" : ""
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let closePad = pretty ? String(repeating: "  ", count: indent) : ""
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): quote(s, to: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + newline
            for (i, item) in items.enumerated() {
                out += pad
                write(item, pretty: pretty, indent: indent + 1, to: &out)
                out += (i + 1 < items.count ? "," : "") + newline
            }
            out += closePad + "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{" + newline
            for (i, member) in members.enumerated() {
                out += pad
                quote(member.key, to: &out)
                out += pretty ? ": " : ":"
                write(member.value, pretty: pretty, indent: indent + 1, to: &out)
                out += (i + 1 < members.count ? "," : "") + newline
            }
            out += closePad + "}"
        }
    }

    private static func quote(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
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
        out += "\""
    }
}
