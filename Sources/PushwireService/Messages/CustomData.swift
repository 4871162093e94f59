import PushwireWire

/// A notification's `data`: a JSON object whose keys go to the payload root. Parsed once at
/// CreateMessage into its top-level keys with their values as compact JSON text, so that rendering
/// copies bytes and the payload is the same whatever whitespace the caller used.
struct CustomData: Sendable, Equatable, Codable {
    /// Top-level entries in key order (bytewise), keys decoded, values compact JSON.
    var entries: [Entry]

    struct Entry: Sendable, Equatable, Codable {
        var key: String
        var value: String
    }

    /// Keys Pushwire writes itself.
    static let reservedKeys: Set<String> = Set(["aps", PayloadRenderer.messageCodeKey] + FCMPayloadRenderer.pushwireKeys)

    /// Parses `text` (empty means no custom keys).
    /// - Throws: a description of what is wrong, for an INVALID_ARGUMENT message.
    static func parse(_ text: String) throws(CustomDataError) -> CustomData {
        if text.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) { return CustomData(entries: []) }
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: "{") else { throw CustomDataError("data must be a JSON object, e.g. {\"order\": 42}") }
        let entries = try parser.topLevelObject()
        parser.skipWhitespace()
        if parser.position != parser.bytes.count { throw CustomDataError("data has text after the JSON object") }
        var seen = Set<String>()
        for entry in entries {
            if reservedKeys.contains(entry.key) { throw CustomDataError("data may not use the key \"\(entry.key)\": Pushwire writes it") }
            if !seen.insert(entry.key).inserted { throw CustomDataError("data has the key \"\(RPCError.echo(entry.key))\" twice") }
        }
        return CustomData(entries: entries.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) })
    }
}

/// Why `data` was refused.
struct CustomDataError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// A strict JSON reader (RFC 8259) that re-emits what it reads without insignificant whitespace.
private struct Parser {
    let bytes: [UInt8]
    var position = 0
    static let maxDepth = 32

    init(bytes: [UInt8]) { self.bytes = bytes }

    func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let c = peek(), c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { position += 1 }
    }

    func fail(_ what: String) -> CustomDataError { CustomDataError("data is not valid JSON: \(what) at byte \(position)") }

    mutating func expect(_ c: UInt8) throws(CustomDataError) {
        guard peek() == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))'") }
        position += 1
    }

    mutating func topLevelObject() throws(CustomDataError) -> [CustomData.Entry] {
        try expect(UInt8(ascii: "{"))
        var entries: [CustomData.Entry] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { position += 1; return entries }
        while true {
            skipWhitespace()
            var keyText: [UInt8] = []
            let key = try string(into: &keyText)
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            var value: [UInt8] = []
            try self.value(into: &value, depth: 1)
            entries.append(CustomData.Entry(key: key, value: String(decoding: value, as: UTF8.self)))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") { position += 1; continue }
            try expect(UInt8(ascii: "}"))
            return entries
        }
    }

    mutating func value(into out: inout [UInt8], depth: Int) throws(CustomDataError) {
        if depth > Parser.maxDepth { throw fail("nested deeper than \(Parser.maxDepth)") }
        guard let c = peek() else { throw fail("unexpected end") }
        switch c {
        case UInt8(ascii: "{"):
            position += 1
            out.append(c)
            skipWhitespace()
            if peek() == UInt8(ascii: "}") { position += 1; out.append(UInt8(ascii: "}")); return }
            while true {
                skipWhitespace()
                _ = try string(into: &out)
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                out.append(UInt8(ascii: ":"))
                skipWhitespace()
                try value(into: &out, depth: depth + 1)
                skipWhitespace()
                if peek() == UInt8(ascii: ",") { position += 1; out.append(UInt8(ascii: ",")); continue }
                try expect(UInt8(ascii: "}"))
                out.append(UInt8(ascii: "}"))
                return
            }
        case UInt8(ascii: "["):
            position += 1
            out.append(c)
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { position += 1; out.append(UInt8(ascii: "]")); return }
            while true {
                skipWhitespace()
                try value(into: &out, depth: depth + 1)
                skipWhitespace()
                if peek() == UInt8(ascii: ",") { position += 1; out.append(UInt8(ascii: ",")); continue }
                try expect(UInt8(ascii: "]"))
                out.append(UInt8(ascii: "]"))
                return
            }
        case UInt8(ascii: "\""):
            _ = try string(into: &out)
        case UInt8(ascii: "t"): try literal("true", into: &out)
        case UInt8(ascii: "f"): try literal("false", into: &out)
        case UInt8(ascii: "n"): try literal("null", into: &out)
        default: try number(into: &out)
        }
    }

    mutating func literal(_ word: String, into out: inout [UInt8]) throws(CustomDataError) {
        let w = Array(word.utf8)
        guard position + w.count <= bytes.count, Array(bytes[position..<position + w.count]) == w else { throw fail("unknown literal") }
        position += w.count
        out.append(contentsOf: w)
    }

    mutating func number(into out: inout [UInt8]) throws(CustomDataError) {
        let start = position
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        if peek() == UInt8(ascii: "-") { position += 1 }
        if peek() == UInt8(ascii: "0") {
            position += 1
        } else if isDigit(peek()) {
            while isDigit(peek()) { position += 1 }
        } else {
            throw fail("expected a value")
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard isDigit(peek()) else { throw fail("expected a digit") }
            while isDigit(peek()) { position += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek()) else { throw fail("expected a digit") }
            while isDigit(peek()) { position += 1 }
        }
        out.append(contentsOf: bytes[start..<position])
    }

    /// The four hex digits of a `\\u` escape (exactly four of 0-9, a-f, A-F: `UInt32(_:radix:)`
    /// would also take a sign, as in `\\u+041`, which is not JSON).
    mutating func hexUnit() throws(CustomDataError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("bad \\u escape") }
        var unit: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("bad \\u escape")
            }
            unit = unit << 4 | UInt32(digit)
        }
        position += 4
        return unit
    }

    /// Appends the UTF-8 of a scalar that is not a surrogate (the callers exclude those).
    func appendScalar(_ value: UInt32, to decoded: inout [UInt8]) {
        if let scalar = Unicode.Scalar(value) { decoded.append(contentsOf: Array(String(Character(scalar)).utf8)) }
    }

    /// Copies a string literal (quotes and escapes as written) and returns its decoded value.
    mutating func string(into out: inout [UInt8]) throws(CustomDataError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string") }
        let start = position
        position += 1
        var decoded: [UInt8] = []
        while true {
            guard let c = peek() else { throw fail("unterminated string") }
            position += 1
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw fail("control character in a string") }
            if c != UInt8(ascii: "\\") {
                decoded.append(c)
                continue
            }
            guard let e = peek() else { throw fail("unterminated escape") }
            position += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(e)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try hexUnit()
                switch unit {
                case 0xD800...0xDBFF:
                    // A high surrogate must be followed at once by an escaped low one: a lone
                    // surrogate is no character: strict JSON readers refuse it, and the text is not UTF-8.
                    guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw fail("lone surrogate \\u\(String(unit, radix: 16))")
                    }
                    position += 2
                    let low = try hexUnit()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate \\u\(String(unit, radix: 16))") }
                    appendScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), to: &decoded)
                case 0xDC00...0xDFFF:
                    throw fail("lone surrogate \\u\(String(unit, radix: 16))")
                default:
                    appendScalar(unit, to: &decoded)
                }
            default: throw fail("bad escape")
            }
        }
        out.append(contentsOf: bytes[start..<position])
        guard let text = String(validating: decoded, as: UTF8.self) else { throw fail("string is not UTF-8") }
        return text
    }
}
