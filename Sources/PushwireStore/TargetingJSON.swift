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
    static func decode(_ text: String) -> TargetingRecord? {
        try? JSONDecoder().decode(TargetingRecord.self, from: Data(text.utf8))
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
