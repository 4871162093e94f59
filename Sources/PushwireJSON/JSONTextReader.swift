/// Reads back JSON text in one exact shape, the one Pushwire's hand-written encoders produce
/// (`JSONText.appendString` for strings, `String(_:)` for integers, no whitespace), without
/// `JSONDecoder`: stored message specs and targetings are read once per message fanned out, and a
/// `JSONDecoder` pass cost more than the rest of the work.
///
/// Strict by design: each method consumes what it expects or returns nil/false, and a caller that
/// meets anything else (text an older binary stored with `JSONEncoder`, say) falls back to
/// `JSONDecoder`, which reads any valid form.
public struct JSONTextReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Runs `body` with a reader over `text`'s UTF-8 bytes.
    public static func read<Value>(_ text: String, _ body: (inout JSONTextReader) -> Value?) -> Value? {
        var copy = text
        return copy.withUTF8 { bytes in
            var reader = JSONTextReader(bytes)
            return body(&reader)
        }
    }

    /// Whether every byte has been consumed.
    public var isAtEnd: Bool { position == bytes.count }

    /// The next byte, not consumed; nil at the end.
    public func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Consumes one byte (nothing at the end).
    public mutating func skip() { if position < bytes.count { position += 1 } }

    /// Consumes `text` if the input continues with exactly it.
    public mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let start = text.utf8Start
        for offset in 0..<count where bytes[position + offset] != start[offset] { return false }
        position += count
        return true
    }

    /// A decimal integer as `String(_:)` writes it (optional `-`, at most 18 digits).
    public mutating func integer() -> Int64? {
        let negative = literal("-")
        let start = position
        var value: Int64 = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            guard position - start < 18 else { return nil }
            value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        guard position > start else { return nil }
        return negative ? -value : value
    }

    /// A string literal with the escapes `JSONText.appendString` writes (`\"`, `\\`, `\b`, `\f`,
    /// `\n`, `\r`, `\t`, `\u00XX`); the common case, no escape, is one copy of the bytes.
    public mutating func string() -> String? {
        guard literal("\"") else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let plain = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                return String(validating: plain, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }  // JSON escapes control characters
            position += 1
        }
        var decoded = Array(bytes[start..<position])
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
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    // Only the control characters `\u00XX` that appendString writes.
                    guard position + 4 <= bytes.count, bytes[position] == UInt8(ascii: "0"),
                          bytes[position + 1] == UInt8(ascii: "0"),
                          let high = Self.hexDigit(bytes[position + 2]), let low = Self.hexDigit(bytes[position + 3]),
                          high < 2 else { return nil }
                    decoded.append(high << 4 | low)
                    position += 4
                default:
                    return nil
                }
            case 0..<0x20:
                return nil
            default:
                decoded.append(byte)
            }
        }
        return nil
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
