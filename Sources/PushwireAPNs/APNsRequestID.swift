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

    /// A new random UUID string, written straight into the string's storage: no intermediate
    /// arrays per notification (this runs once per APNs request).
    static func make() -> String {
        let step = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        var high = mix(seed &+ step &* 2)
        let low = mix(seed &+ step &* 2 &+ 1)
        // Byte 6 (the high byte's seventh, little-endian) carries the version, byte 8 (the low
        // byte's first) the RFC 4122 variant.
        high = high & ~(0xF0 << 48) | (0x40 << 48)
        let variantLow = low & ~0xC0 | 0x80
        return String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                let byte = UInt8(truncatingIfNeeded: (index < 8 ? high : variantLow) >> (UInt64(index % 8) * 8))
                out[position] = hexDigit(byte >> 4)
                out[position + 1] = hexDigit(byte & 0x0F)
                position += 2
            }
            return position
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
