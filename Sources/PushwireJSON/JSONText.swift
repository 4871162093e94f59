/// Writing JSON text by hand, byte for byte: rendered payloads must be deterministic (golden tests
/// compare them exactly) and their size known to the byte (APNs' 4096-byte limit).
public enum JSONText {
    /// Appends `value` as a JSON string literal, quotes included. Escapes `"`, `\` and control
    /// characters (as `\n`, `\t`, … or `\u00XX`); everything else is copied as UTF-8.
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(0x22)
        // Most text needs no escape: then one copy of its bytes instead of one append per byte.
        // A native string's bytes are scanned and copied as one buffer (walking the `UTF8View`
        // byte by byte cost more than the rest of rendering a small payload).
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { bytes in
            if needsEscape(bytes) {
                for byte in bytes { appendEscaped(byte, to: &out) }
            } else {
                out.append(contentsOf: bytes)
            }
            return true
        }
        if copied == nil {
            if value.utf8.contains(where: needsEscape) {
                for byte in value.utf8 { appendEscaped(byte, to: &out) }
            } else {
                out.append(contentsOf: value.utf8)
            }
        }
        out.append(0x22)
    }

    /// Whether `byte` is written escaped: `"`, `\` or a control character.
    @inline(__always)
    public static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C
    }

    /// Whether any of `bytes` is written escaped (`needsEscape`), eight bytes at a time: scanned
    /// a byte at a time, the text of a sink line or payload (a token, texts, codes) cost about
    /// four instructions a byte, the largest item of rendering them (SIMD16 compares, as Swift
    /// compiles them here, cost eight times more than this). A word has a byte below 0x20 when
    /// subtracting 0x20 from every byte borrows into a byte whose top bit was clear
    /// (`(w - 0x2020…) & ~w & 0x8080…`), and a byte equal to `c` when `w ^ cc…` has a zero byte
    /// (the same test with 0x0101…). Each test is exact as to whether such a byte exists (the
    /// borrow starts at the lowest one); which byte it is does not matter here.
    /// `JSONTextTests` checks it against `needsEscape(_: UInt8)` byte by byte.
    public static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let control = (word &- (ones &* 0x20)) & ~word
            let isQuote = (quote &- ones) & ~quote
            let isBackslash = (backslash &- ones) & ~backslash
            if (control | isQuote | isBackslash) & highs != 0 { return true }
            index += 8
        }
        while index < bytes.count {
            if needsEscape(base[index]) { return true }
            index += 1
        }
        return false
    }

    /// How many bytes `appendString` writes for `value`'s UTF-8 bytes, without the quotes.
    public static func escapedCount<S: Sequence>(_ utf8: S) -> Int where S.Element == UInt8 {
        var count = 0
        for byte in utf8 { count += escapedCount(byte) }
        return count
    }

    /// The escaped length of one byte.
    @inline(__always)
    public static func escapedCount(_ byte: UInt8) -> Int {
        switch byte {
        case 0x22, 0x5C, 0x08, 0x0C, 0x0A, 0x0D, 0x09: 2
        case 0..<0x20: 6
        default: 1
        }
    }

    @inline(__always)
    static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x08: out.append(contentsOf: [0x5C, 0x62])
        case 0x0C: out.append(contentsOf: [0x5C, 0x66])
        case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
        case 0x0D: out.append(contentsOf: [0x5C, 0x72])
        case 0x09: out.append(contentsOf: [0x5C, 0x74])
        case 0..<0x20:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        default: out.append(byte)
        }
    }

    /// Appends the bytes of a literal (keys, punctuation, `true`): straight from the binary's
    /// text, about half the instructions of appending the literal's `.utf8` as a `String`
    /// (callgrind: 91 against about 200 an append, which renderers make tens of times a message).
    @inline(__always)
    public static func appendLiteral(_ literal: StaticString, to text: inout [UInt8]) {
        text.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal (as `String(value)` writes it), without a String.
    public static func appendDecimal(_ value: Int64, to text: inout [UInt8]) {
        if value < 0 { text.append(0x2D) }
        appendDecimal(value.magnitude, to: &text)
    }

    /// Appends `value` in decimal (as `String(value)` writes it), without a String: the one
    /// decimal writer of the byte-built texts (JSON, log lines, metrics, array literals, headers).
    /// Digits from the last into a buffer on the stack, then appended at once: a division by the
    /// constant 10 per digit, which the compiler makes a multiplication. (Reversing the digits
    /// in place, `text[start...].reverse()`, copied them out to a slice of their own and back:
    /// 840 instructions a number in callgrind, against about 170 for this, the append included.)
    public static func appendDecimal(_ value: UInt64, to text: inout [UInt8]) {
        if value < 10 {
            text.append(0x30 &+ UInt8(truncatingIfNeeded: value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in  // UInt64.max has 20
            var rest = value
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = 0x30 &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            text.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }
}
