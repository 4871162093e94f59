/// `apns-id` values: random (version 4) UUIDs in the canonical lowercase 8-4-4-4-12 form.
enum APNsRequestID {
    private static let hex = Array("0123456789abcdef".utf8)

    /// A new random UUID string.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
