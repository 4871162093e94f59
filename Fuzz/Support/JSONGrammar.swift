/// An independent check of JSON text against RFC 8259's grammar, written for the fuzz targets and
/// sharing no code with Pushwire's JSON readers and writers: the oracle for "every JSON text
/// Pushwire accepts or emits is valid".
///
/// Strict where RFC 8259 is: the text must be UTF-8; strings hold no raw control characters and
/// only the escapes `\" \\ \/ \b \f \n \r \t \uXXXX` (exactly four hex digits); a `\u` escape of a
/// surrogate must be a high one followed at once by an escaped low one (anything else cannot be
/// turned into Unicode text); numbers have no leading zeros, `+`, bare `.` or missing digits.
/// Nesting deeper than `maxDepth` is refused.
public enum JSONGrammar {
    /// How deep arrays and objects may nest.
    public static let maxDepth = 512

    /// Whether `bytes` is exactly one JSON value, with optional whitespace around it.
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        let text = Array(bytes)
        guard String(validating: text, as: UTF8.self) != nil else { return false }
        var checker = Checker(bytes: text)
        checker.whitespace()
        guard checker.value(depth: 0) else { return false }
        checker.whitespace()
        return checker.position == text.count
    }

    /// Whether `bytes` is exactly one JSON string literal (quotes included).
    public static func isValidString(_ bytes: some Collection<UInt8>) -> Bool {
        let text = Array(bytes)
        guard String(validating: text, as: UTF8.self) != nil else { return false }
        var checker = Checker(bytes: text)
        return checker.string() && checker.position == text.count
    }

    private struct Checker {
        let bytes: [UInt8]
        var position = 0

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func whitespace() {
            while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { position += 1 }
        }

        mutating func take(_ c: UInt8) -> Bool {
            guard current == c else { return false }
            position += 1
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard let c = current else { return false }
            switch c {
            case UInt8(ascii: "{"):
                guard depth < JSONGrammar.maxDepth else { return false }
                position += 1
                whitespace()
                if take(UInt8(ascii: "}")) { return true }
                repeat {
                    whitespace()
                    guard string() else { return false }
                    whitespace()
                    guard take(UInt8(ascii: ":")) else { return false }
                    whitespace()
                    guard value(depth: depth + 1) else { return false }
                    whitespace()
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "}"))
            case UInt8(ascii: "["):
                guard depth < JSONGrammar.maxDepth else { return false }
                position += 1
                whitespace()
                if take(UInt8(ascii: "]")) { return true }
                repeat {
                    whitespace()
                    guard value(depth: depth + 1) else { return false }
                    whitespace()
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "]"))
            case UInt8(ascii: "\""):
                return string()
            case UInt8(ascii: "t"): return word("true")
            case UInt8(ascii: "f"): return word("false")
            case UInt8(ascii: "n"): return word("null")
            default: return number()
            }
        }

        mutating func word(_ w: String) -> Bool {
            for byte in w.utf8 where !take(byte) { return false }
            return true
        }

        mutating func digits() -> Int {
            let start = position
            while let c = current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { position += 1 }
            return position - start
        }

        mutating func number() -> Bool {
            _ = take(UInt8(ascii: "-"))
            if take(UInt8(ascii: "0")) {
                // No leading zeros: "01" is not a number.
            } else {
                guard let c = current, c >= UInt8(ascii: "1"), c <= UInt8(ascii: "9") else { return false }
                _ = digits()
            }
            if take(UInt8(ascii: ".")) {
                guard digits() > 0 else { return false }
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
                guard digits() > 0 else { return false }
            }
            return true
        }

        mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[position]
                let digit: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
                default: return nil
                }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        mutating func string() -> Bool {
            guard take(UInt8(ascii: "\"")) else { return false }
            while let c = current {
                position += 1
                switch c {
                case UInt8(ascii: "\""):
                    return true
                case 0..<0x20:
                    return false
                case UInt8(ascii: "\\"):
                    guard let e = current else { return false }
                    position += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        guard let unit = hex4() else { return false }
                        if (0xDC00...0xDFFF).contains(unit) { return false }
                        if (0xD800...0xDBFF).contains(unit) {
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                                  (0xDC00...0xDFFF).contains(low) else { return false }
                        }
                    default:
                        return false
                    }
                default:
                    continue
                }
            }
            return false
        }
    }
}
