import Foundation
import PushwireJSON

/// The stored text of a `TargetingRecord` (the `messages.targeting` column of both engines):
/// compact JSON written by hand, keys sorted, in the shape of the synthesized `Codable`
/// conformance (an enum value is `{"string":{"_0":"x"}}`). CreateMessage stores one per
/// notification, and a `JSONEncoder` pass cost more than the insert on SQLite and 11 µs a message
/// on PostgreSQL's event loops; `JSONDecoder` reads this text and the text older binaries stored.
public enum TargetingJSON {
    /// `targeting` as compact JSON.
    public static func encode(_ targeting: TargetingRecord) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64 + targeting.hwids.reduce(0) { $0 + $1.utf8.count + 3 })
        JSONText.appendLiteral(#"{"conditions":["#, to: &out)
        for (index, condition) in targeting.conditions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendLiteral(#"{"op":"#, to: &out)
            JSONText.appendString(condition.op.rawValue, to: &out)
            JSONText.appendLiteral(#","tag":"#, to: &out)
            JSONText.appendString(condition.tag, to: &out)
            JSONText.appendLiteral(#","values":["#, to: &out)
            for (valueIndex, value) in condition.values.enumerated() {
                if valueIndex > 0 { out.append(UInt8(ascii: ",")) }
                switch value {
                case .string(let text):
                    JSONText.appendLiteral(#"{"string":{"_0":"#, to: &out)
                    JSONText.appendString(text, to: &out)
                case .int(let number):
                    JSONText.appendLiteral(#"{"int":{"_0":"#, to: &out)
                    JSONText.appendDecimal(Int64(number), to: &out)
                case .bool(let flag):
                    JSONText.appendLiteral(#"{"bool":{"_0":"#, to: &out)
                    JSONText.appendLiteral(flag ? "true" : "false", to: &out)
                }
                JSONText.appendLiteral("}}", to: &out)
            }
            JSONText.appendLiteral("]}", to: &out)
        }
        JSONText.appendLiteral(#"],"hwids":["#, to: &out)
        appendStrings(targeting.hwids, to: &out)
        JSONText.appendLiteral(#"],"platforms":["#, to: &out)
        for (index, platform) in targeting.platforms.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendDecimal(Int64(platform), to: &out)
        }
        JSONText.appendLiteral(#"],"userIDs":["#, to: &out)
        appendStrings(targeting.userIDs, to: &out)
        JSONText.appendLiteral("]}", to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads a stored targeting (this encoding or `JSONEncoder`'s); nil when it is not one.
    ///
    /// Text in exactly the shape `encode` writes without tag conditions (what the fan-out reads
    /// for every message it starts) is read by hand; anything else goes through `JSONDecoder`.
    public static func decode(_ text: String) -> TargetingRecord? {
        if let fast = JSONTextReader.read(text, { reader in
            var targeting = Reader(reader: reader)
            return targeting.targetingWithoutConditions()
        }) {
            return fast
        }
        return try? JSONDecoder().decode(TargetingRecord.self, from: Data(text.utf8))
    }

    /// Reads `{"conditions":[],"hwids":[…],"platforms":[…],"userIDs":[…]}` with the escapes
    /// `encode` writes; nil at the first byte it does not expect.
    private struct Reader {
        var reader: JSONTextReader

        mutating func targetingWithoutConditions() -> TargetingRecord? {
            guard reader.literal(#"{"conditions":[],"hwids":["#), let hwids = strings(),
                  reader.literal(#","platforms":["#), let platforms = integers(),
                  reader.literal(#","userIDs":["#), let userIDs = strings(),
                  reader.literal("}"), reader.isAtEnd else { return nil }
            return TargetingRecord(hwids: hwids, userIDs: userIDs, platforms: platforms)
        }

        /// String literals up to and including the closing `]`.
        mutating func strings() -> [String]? {
            var values: [String] = []
            if reader.literal("]") { return values }
            while true {
                guard let value = reader.string() else { return nil }
                values.append(value)
                if reader.literal("]") { return values }
                guard reader.literal(",") else { return nil }
            }
        }

        /// Integers up to and including the closing `]`.
        mutating func integers() -> [Int32]? {
            var values: [Int32] = []
            if reader.literal("]") { return values }
            while true {
                guard let value = reader.integer(), let number = Int32(exactly: value) else { return nil }
                values.append(number)
                if reader.literal("]") { return values }
                guard reader.literal(",") else { return nil }
            }
        }
    }

    private static func appendStrings(_ values: [String], to out: inout [UInt8]) {
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(value, to: &out)
        }
    }
}
