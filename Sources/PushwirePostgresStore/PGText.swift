import PushwireJSON

/// Values in PostgreSQL's text formats: bytea in hex, arrays as `{…}` literals, booleans.
enum PGText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `\x…` hex text of `bytes`, as a bytea parameter.
    static func bytea(_ bytes: [UInt8]) -> String { "\\x" + hex(bytes) }

    /// The bytes of a bytea value in hex output (`\x…`); empty when it is not hex.
    static func decodeBytea(_ text: String) -> [UInt8] {
        let digits = text.utf8
        guard digits.starts(with: [0x5C, 0x78]) else { return [] }
        return unhex(digits.dropFirst(2)) ?? []
    }

    /// `bytes` in lowercase hex digits (as PostgreSQL's `encode(…, 'hex')` writes them).
    static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes that hex `digits` (either case) spell; nil when they are not an even number of
    /// hex digits. The one hex decoder of the engine: bytea values and the change feed's hwids.
    static func unhex<C: Collection>(_ digits: C) -> [UInt8]? where C.Element == UInt8 {
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index != digits.endIndex {
            let next = digits.index(after: index)
            guard let high = value(digits[index]), let low = value(digits[next]) else { return nil }
            bytes.append(high << 4 | low)
            index = digits.index(after: next)
        }
        return bytes
    }

    /// A boolean parameter.
    static func bool(_ value: Bool) -> String { value ? "t" : "f" }

    /// An array literal of texts (`{"a","b\"c"}`), every element quoted so that none is read as
    /// NULL or split; for a `$n::text[]` parameter.
    static func textArray<S: Sequence>(_ values: S) -> String where S.Element == String {
        optionalTextArray(values.lazy.map { Optional($0) })
    }

    /// An array literal of texts where nil is NULL (`{"a",NULL}`), the others quoted as in
    /// `textArray`; for a `$n::text[]` parameter. Written into one buffer, each text's runs
    /// without a `"` or `\` copied whole: byte by byte, the messages' specs and targetings cost
    /// 1.4 % of a machine running CreateMessage on PostgreSQL.
    static func optionalTextArray<S: Sequence>(_ values: S) -> String where S.Element == String? {
        var text: [UInt8] = []
        text.reserveCapacity(values.underestimatedCount * 24 + 2)
        text.append(0x7B)
        var first = true
        for value in values {
            if !first { text.append(0x2C) }
            first = false
            guard var value else {
                text += "NULL".utf8
                continue
            }
            text.append(0x22)
            value.withUTF8 { bytes in
                var run = 0
                for (index, byte) in bytes.enumerated() where byte == 0x22 || byte == 0x5C {
                    text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                    text.append(0x5C)
                    run = index  // the escaped byte starts the next run
                }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
            }
            text.append(0x22)
        }
        text.append(0x7D)
        return String(decoding: text, as: UTF8.self)
    }

    /// An array literal of integers, for a `$n::bigint[]` parameter. Written digit by digit into
    /// one buffer: a `String` per element, joined, cost more than the statement's other work in
    /// pushwired for the fan-out steps' arrays.
    static func intArray<S: Sequence>(_ values: S) -> String where S.Element == Int64 {
        optionalIntArray(values.lazy.map { Optional($0) })
    }

    /// An array literal of integers where nil is NULL (`{1,NULL}`), as `intArray` writes them.
    static func optionalIntArray<S: Sequence>(_ values: S) -> String where S.Element == Int64? {
        var text: [UInt8] = [0x7B]
        text.reserveCapacity(values.underestimatedCount * 8 + 2)
        var first = true
        for value in values {
            if !first { text.append(0x2C) }
            first = false
            guard let value else {
                text += "NULL".utf8
                continue
            }
            JSONText.appendDecimal(value, to: &text)
        }
        text.append(0x7D)
        return String(decoding: text, as: UTF8.self)
    }
}
