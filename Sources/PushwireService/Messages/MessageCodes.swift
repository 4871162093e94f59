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
        // Written straight into the string's storage: the digit table, the group list and the
        // byte array this was built from were three allocations per code on the event loop.
        return String(unsafeUninitializedCapacity: length) { buffer in
            var position = 0
            for drawn in 0..<21 {
                if drawn == 5 || drawn == 13 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let nibble: UInt8
                if drawn < 16 {
                    nibble = UInt8(truncatingIfNeeded: bits.0 & 0xF)
                    bits.0 >>= 4
                } else {
                    nibble = UInt8(truncatingIfNeeded: bits.1 & 0xF)
                    bits.1 >>= 4
                }
                buffer[position] = nibble < 10 ? 0x30 + nibble : 0x37 + nibble
                position += 1
            }
            return position
        }
    }
}
