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
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789ABCDEF")
        var code = ""
        code.reserveCapacity(length)
        for group in [5, 8, 8] {
            if !code.isEmpty { code.append("-") }
            for _ in 0..<group { code.append(digits[Int(generator.next() & 0xF)]) }
        }
        return code
    }
}
