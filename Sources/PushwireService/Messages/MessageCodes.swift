#if canImport(Glibc)
import Glibc
#endif

/// Message codes: `XXXXX-XXXXXXXX-XXXXXXXX`, 21 upper-case hex digits (84 random bits) in groups of
/// 5, 8 and 8. Random rather than sequential so that a code reveals nothing about other messages
/// and cannot be guessed by a device reporting taps; the store's unique index catches the
/// (astronomically unlikely) collision.
enum MessageCodes {
    /// The length of every code.
    static let length = 23
    /// A code-shaped string, for sizing payloads before the code exists.
    static let placeholder = "00000-00000000-00000000"

    /// A new random code.
    static func make() -> String {
        // 128 bits, 84 of them used, from the kernel's CSPRNG in one call (glibc's
        // arc4random_buf is one getrandom(2); SystemRandomNumberGenerator makes one per 64 bits,
        // and a code is made on the event loop for every notification).
        var bits: (UInt64, UInt64) = (0, 0)
        #if canImport(Glibc)
        withUnsafeMutableBytes(of: &bits) { buffer in
            if let base = buffer.baseAddress { arc4random_buf(base, buffer.count) }
        }
        #else
        var generator = SystemRandomNumberGenerator()
        bits = (generator.next(), generator.next())
        #endif
        let digits = Array("0123456789ABCDEF".utf8)
        var code: [UInt8] = []
        code.reserveCapacity(length)
        var drawn = 0
        for group in [5, 8, 8] {
            if !code.isEmpty { code.append(UInt8(ascii: "-")) }
            for _ in 0..<group {
                let nibble: UInt64
                if drawn < 16 {
                    nibble = bits.0 & 0xF
                    bits.0 >>= 4
                } else {
                    nibble = bits.1 & 0xF
                    bits.1 >>= 4
                }
                drawn += 1
                code.append(digits[Int(nibble)])
            }
        }
        return String(decoding: code, as: UTF8.self)
    }
}
