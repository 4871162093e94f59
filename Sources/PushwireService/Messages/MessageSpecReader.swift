/// Reads back exactly what `MessageSpecJSON.encode` writes, without `JSONDecoder`: every small
/// message fanned out decodes its spec once, and a `JSONDecoder` pass cost more than rendering
/// its payloads. Strict: at the first byte it does not expect (e.g. text an older binary stored
/// with `JSONEncoder`, or whitespace) it gives up (nil), and `MessageSpecJSON.decode` falls back
/// to `JSONDecoder`, which reads any valid form.
struct MessageSpecReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The spec in `text`, or nil when it is not in `encode`'s exact form.
    static func read(_ text: String) -> MessageSpec? {
        var copy = text
        return copy.withUTF8 { bytes in
            var reader = MessageSpecReader(bytes)
            return reader.spec()
        }
    }

    private mutating func spec() -> MessageSpec? {
        guard literal("{") else { return nil }
        var badgeIncrement: Int32?
        var badgeSet: UInt32?
        if literal(#""badgeIncrement":"#) {
            guard let value = integer(), let narrow = Int32(exactly: value), literal(",") else { return nil }
            badgeIncrement = narrow
        }
        if literal(#""badgeSet":"#) {
            guard let value = integer(), let narrow = UInt32(exactly: value), literal(",") else { return nil }
            badgeSet = narrow
        }
        guard literal(#""categoryID":"#), let categoryID = integer().flatMap({ UInt32(exactly: $0) }),
              literal(#","collapseID":"#), let collapseID = string(),
              literal(#","custom":{"entries":["#), let entries = customEntries(),
              literal(#"},"defaultTexts":"#), let defaultTexts = texts(),
              literal(#","interruptionLevel":"#), let interruptionLevel = string(),
              literal(#","localized":{"#), let localized = localizedTexts(),
              literal(#","sound":"#), let sound = string(),
              literal(#","threadID":"#), let threadID = string(),
              literal(#","ttl":"#), let ttl = integer().flatMap({ UInt32(exactly: $0) }),
              literal("}"), position == bytes.count
        else { return nil }
        return MessageSpec(
            defaultTexts: defaultTexts, localized: localized, categoryID: categoryID, badgeSet: badgeSet,
            badgeIncrement: badgeIncrement, sound: sound, threadID: threadID, interruptionLevel: interruptionLevel,
            custom: CustomData(entries: entries), ttl: ttl, collapseID: collapseID)
    }

    /// `{"key":…,"value":…}` objects up to and including the closing `]`.
    private mutating func customEntries() -> [CustomData.Entry]? {
        var entries: [CustomData.Entry] = []
        if literal("]") { return entries }
        while true {
            guard literal(#"{"key":"#), let key = string(), literal(#","value":"#), let value = string(), literal("}")
            else { return nil }
            entries.append(CustomData.Entry(key: key, value: value))
            if literal("]") { return entries }
            guard literal(",") else { return nil }
        }
    }

    /// `"language":{texts}` pairs up to and including the closing `}`.
    private mutating func localizedTexts() -> [String: MessageSpec.Texts]? {
        var localized: [String: MessageSpec.Texts] = [:]
        if literal("}") { return localized }
        while true {
            guard let language = string(), literal(":"), let texts = texts() else { return nil }
            localized[language] = texts
            if literal("}") { return localized }
            guard literal(",") else { return nil }
        }
    }

    private mutating func texts() -> MessageSpec.Texts? {
        guard literal(#"{"body":"#), let body = string(), literal(#","subtitle":"#), let subtitle = string(),
              literal(#","title":"#), let title = string(), literal("}") else { return nil }
        return MessageSpec.Texts(title: title, subtitle: subtitle, body: body)
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let start = text.utf8Start
        for offset in 0..<count where bytes[position + offset] != start[offset] { return false }
        position += count
        return true
    }

    /// A decimal integer as `String(_:)` writes it (optional `-`, at most 19 digits).
    private mutating func integer() -> Int64? {
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

    /// A string literal with the escapes `JSONText.appendString` writes; the common case (no
    /// escape) is one copy of the bytes.
    private mutating func string() -> String? {
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
