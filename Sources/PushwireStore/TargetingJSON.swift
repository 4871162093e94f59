import Foundation

/// The stored text of a `TargetingRecord` (the `messages.targeting` column): compact JSON written
/// by hand, keys sorted, in the shape of the synthesized `Codable` conformance (an enum value is
/// `{"string":{"_0":"x"}}`). CreateMessage stores one per notification and a `JSONEncoder` pass
/// cost more than the insert; `JSONDecoder` reads this text and the text older binaries stored.
enum TargetingJSON {
    /// `targeting` as compact JSON.
    static func encode(_ targeting: TargetingRecord) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64 + targeting.hwids.reduce(0) { $0 + $1.utf8.count + 3 })
        out.append(contentsOf: #"{"conditions":["#.utf8)
        for (index, condition) in targeting.conditions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"op":"#.utf8)
            appendString(condition.op.rawValue, to: &out)
            out.append(contentsOf: #","tag":"#.utf8)
            appendString(condition.tag, to: &out)
            out.append(contentsOf: #","values":["#.utf8)
            for (valueIndex, value) in condition.values.enumerated() {
                if valueIndex > 0 { out.append(UInt8(ascii: ",")) }
                switch value {
                case .string(let text):
                    out.append(contentsOf: #"{"string":{"_0":"#.utf8)
                    appendString(text, to: &out)
                case .int(let number):
                    out.append(contentsOf: #"{"int":{"_0":"#.utf8)
                    out.append(contentsOf: String(number).utf8)
                case .bool(let flag):
                    out.append(contentsOf: #"{"bool":{"_0":"#.utf8)
                    out.append(contentsOf: (flag ? "true" : "false").utf8)
                }
                out.append(contentsOf: "}}".utf8)
            }
            out.append(contentsOf: "]}".utf8)
        }
        out.append(contentsOf: #"],"hwids":["#.utf8)
        appendStrings(targeting.hwids, to: &out)
        out.append(contentsOf: #"],"platforms":["#.utf8)
        for (index, platform) in targeting.platforms.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: String(platform).utf8)
        }
        out.append(contentsOf: #"],"userIDs":["#.utf8)
        appendStrings(targeting.userIDs, to: &out)
        out.append(contentsOf: "]}".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads a stored targeting (this encoding or `JSONEncoder`'s); nil when it is not one.
    ///
    /// Text in exactly the shape `encode` writes without tag conditions (what the fan-out reads
    /// for every message it starts) is read by hand; anything else goes through `JSONDecoder`.
    static func decode(_ text: String) -> TargetingRecord? {
        var text = text
        if let fast = text.withUTF8({ bytes -> TargetingRecord? in
            var reader = Reader(bytes: bytes)
            return reader.targetingWithoutConditions()
        }) {
            return fast
        }
        return try? JSONDecoder().decode(TargetingRecord.self, from: Data(text.utf8))
    }

    /// Reads `{"conditions":[],"hwids":[…],"platforms":[…],"userIDs":[…]}` with the escapes
    /// `encode` writes; nil at the first byte it does not expect.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            let start = text.utf8Start
            for offset in 0..<count where bytes[position + offset] != start[offset] { return false }
            position += count
            return true
        }

        mutating func targetingWithoutConditions() -> TargetingRecord? {
            guard literal(#"{"conditions":[],"hwids":["#), let hwids = strings(),
                  literal(#","platforms":["#), let platforms = integers(),
                  literal(#","userIDs":["#), let userIDs = strings(),
                  literal("}"), position == bytes.count else { return nil }
            return TargetingRecord(hwids: hwids, userIDs: userIDs, platforms: platforms)
        }

        /// String literals up to and including the closing `]`.
        mutating func strings() -> [String]? {
            var values: [String] = []
            if literal("]") { return values }
            while true {
                guard let value = string() else { return nil }
                values.append(value)
                if literal("]") { return values }
                guard literal(",") else { return nil }
            }
        }

        mutating func string() -> String? {
            guard literal("\"") else { return nil }
            var decoded: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: decoded, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { return nil }
                    let escape = bytes[position]
                    position += 1
                    if escape == UInt8(ascii: "\"") || escape == UInt8(ascii: "\\") {
                        decoded.append(escape)
                    } else if escape == UInt8(ascii: "u"), position + 4 <= bytes.count,
                              bytes[position] == UInt8(ascii: "0"), bytes[position + 1] == UInt8(ascii: "0"),
                              let high = hexDigit(bytes[position + 2]), let low = hexDigit(bytes[position + 3]) {
                        decoded.append(high << 4 | low)
                        position += 4
                    } else {
                        return nil
                    }
                default:
                    decoded.append(byte)
                }
            }
            return nil
        }

        /// Integers up to and including the closing `]`.
        mutating func integers() -> [Int32]? {
            var values: [Int32] = []
            if literal("]") { return values }
            while true {
                var value: Int64 = 0
                let negative = literal("-")
                let start = position
                while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9"),
                      position - start < 10 {
                    value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
                    position += 1
                }
                guard position > start, let number = Int32(exactly: negative ? -value : value) else { return nil }
                values.append(number)
                if literal("]") { return values }
                guard literal(",") else { return nil }
            }
        }

        func hexDigit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: nil
            }
        }
    }

    private static func appendStrings(_ values: [String], to out: inout [UInt8]) {
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(value, to: &out)
        }
    }

    /// A JSON string literal: `"`, `\` and control characters escaped, the rest copied as UTF-8.
    static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most text needs no escape: then one copy of its bytes instead of one append per byte.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: value.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
