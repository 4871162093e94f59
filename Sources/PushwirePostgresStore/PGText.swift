/// Values in PostgreSQL's text formats: bytea in hex, arrays as `{…}` literals, booleans.
enum PGText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `\x…` hex text of `bytes`, as a bytea parameter.
    static func bytea(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = [0x5C, 0x78]
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of a bytea value in hex output (`\x…`); empty when it is not hex.
    static func decodeBytea(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == 0x5C, digits[1] == 0x78, digits.count % 2 == 0 else { return [] }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((digits.count - 2) / 2)
        var index = 2
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return [] }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// A boolean parameter.
    static func bool(_ value: Bool) -> String { value ? "t" : "f" }

    /// An array literal of texts (`{"a","b\"c"}`), every element quoted so that none is read as
    /// NULL or split; for a `$n::text[]` parameter.
    static func textArray<S: Sequence>(_ values: S) -> String where S.Element == String {
        var text: [UInt8] = [0x7B]
        var first = true
        for value in values {
            if !first { text.append(0x2C) }
            first = false
            text.append(0x22)
            for byte in value.utf8 {
                if byte == 0x22 || byte == 0x5C { text.append(0x5C) }
                text.append(byte)
            }
            text.append(0x22)
        }
        text.append(0x7D)
        return String(decoding: text, as: UTF8.self)
    }

    /// `textArray` with NULL elements (unquoted `NULL`) for the nil ones.
    static func optionalTextArray(_ values: [String?]) -> String {
        var parts: [String] = []
        parts.reserveCapacity(values.count)
        for value in values {
            guard let value else {
                parts.append("NULL")
                continue
            }
            let quoted = textArray([value])
            parts.append(String(quoted.dropFirst().dropLast()))
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    /// An array literal of integers, for a `$n::bigint[]` parameter.
    static func intArray<S: Sequence>(_ values: S) -> String where S.Element == Int64 {
        "{" + values.map { String($0) }.joined(separator: ",") + "}"
    }
}
