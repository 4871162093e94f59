/// A UTF-8 check for string fields, which must also be free of NUL (protobuf-c strings are C strings).
enum UTF8Check {
    /// What the bytes are.
    enum Outcome { case valid, invalid, nul }

    /// Checks `count` bytes at `p`: well-formed UTF-8 (no overlong forms, no surrogates, nothing
    /// above U+10FFFF) without NUL. ASCII is checked 8 bytes at a time.
    static func check(_ p: UnsafePointer<UInt8>, _ count: Int) -> Outcome {
        let raw = UnsafeRawPointer(p)
        var i = 0
        while i < count {
            // Fast path: 8 ASCII bytes, none of them NUL.
            if count - i >= 8 {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let high: UInt64 = 0x8080_8080_8080_8080
                let hasZero = (word &- 0x0101_0101_0101_0101) & ~word & high
                if word & high == 0 && hasZero == 0 {
                    i += 8
                    continue
                }
            }
            let b = p[i]
            if b < 0x80 {
                if b == 0 { return .nul }
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xbf
            switch b {
            case 0xc2...0xdf: length = 2
            case 0xe0: length = 3; low = 0xa0
            case 0xe1...0xec, 0xee...0xef: length = 3
            case 0xed: length = 3; high = 0x9f
            case 0xf0: length = 4; low = 0x90
            case 0xf1...0xf3: length = 4
            case 0xf4: length = 4; high = 0x8f
            default: return .invalid
            }
            guard count - i >= length else { return .invalid }
            let second = p[i + 1]
            guard second >= low, second <= high else { return .invalid }
            var k = 2
            while k < length {
                guard p[i + k] & 0xc0 == 0x80 else { return .invalid }
                k += 1
            }
            i += length
        }
        return .valid
    }
}
