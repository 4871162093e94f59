import Synchronization

/// `apns-id` values: random (version 4) UUIDs in the canonical lowercase 8-4-4-4-12 form.
///
/// They only need to be unique, not unpredictable, so they come from SplitMix64 over an atomic
/// counter seeded once from the system generator: no getrandom(2) call per notification.
enum APNsRequestID {
    private static let seed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let counter = Atomic<UInt64>(0)

    /// SplitMix64's output function: distinct inputs give distinct, well-mixed outputs.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A new random UUID string.
    static func make() -> String {
        let step = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        let high = mix(seed &+ step &* 2)
        let low = mix(seed &+ step &* 2 &+ 1)
        var bytes = (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (UInt64(index % 8) * 8)) }
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
