/// Codes and secrets issued to applications.
enum Credentials {
    private static let codeAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// A fresh application code, Pushwoosh-like: `A1B2C-3D4E5` (36^10 ≈ 3.7e15 codes).
    static func newApplicationCode() -> String {
        var generator = SystemRandomNumberGenerator()
        var characters: [Character] = []
        for i in 0..<10 {
            if i == 5 { characters.append("-") }
            characters.append(codeAlphabet[Int(generator.next(upperBound: UInt32(codeAlphabet.count)))])
        }
        return String(characters)
    }

    /// A fresh access token: 32 random bytes as 64 hex characters.
    static func newAccessToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return hexString((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Compares secrets in time independent of where they differ.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in constantTimeEqual(a, b) } }
    }

    /// Compares secrets held as strings (their UTF-8 bytes) in time independent of where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { a in b.withUTF8 { b in constantTimeEqual(a, b) } }
    }

    private static func constantTimeEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0 ..< a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
