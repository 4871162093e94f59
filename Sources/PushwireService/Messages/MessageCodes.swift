#if canImport(Glibc)
import Glibc
#endif
import PushwireSystem

/// Message codes: `TTTTT-XXXXXXXX-XXXXXXXX`, 21 upper-case hex digits in groups of 5, 8 and 8.
///
/// The last 16 digits are 64 random bits, so that a code cannot be guessed by a device reporting
/// taps and says nothing about other messages' codes; the store's unique index catches the
/// (astronomically unlikely) collision. The first 5 are a clock, 64 ticks a second, wrapping every
/// 4.55 hours: codes made together sort together, so the store's unique index on codes takes a
/// commit's new codes on one or two of its pages. With all 21 digits random, every new code
/// dirtied a page of its own, which was most of what each commit wrote to the log and fsynced
/// (docs/journal/2026-11-30-messages-cpu-passes.md, "Message codes"). The clock tells when the message was created, to 1/64 s
/// and modulo 4.55 hours, which whoever holds its code knows anyway.
enum MessageCodes {
    /// The length of every code.
    static let length = 23
    /// A code-shaped string, for sizing payloads before the code exists.
    static let placeholder = "00000-00000000-00000000"
    /// The clock's ticks per second.
    static let ticksPerSecond: UInt64 = 64
    /// How many ticks the 5-digit clock counts before it wraps.
    static let clockTicks: UInt64 = 1 << 20

    /// A new code: the clock's tick now, then 64 random bits.
    static func make() -> String {
        // From the kernel's CSPRNG, drawn in bulk per thread.
        var bits = RandomWords.next()
        let tick = currentTick()
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
                if drawn < 5 {
                    // Most significant digit first, so that codes sort by their tick.
                    nibble = UInt8(truncatingIfNeeded: (tick >> UInt64(4 * (4 - drawn))) & 0xF)
                } else {
                    nibble = UInt8(truncatingIfNeeded: bits & 0xF)
                    bits >>= 4
                }
                buffer[position] = nibble < 10 ? 0x30 + nibble : 0x37 + nibble
                position += 1
            }
            return position
        }
    }

    /// The clock of a code's first group: wall-clock time in 1/64 s, modulo `clockTicks`.
    static func currentTick() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let ticks = UInt64(now.tv_sec) &* ticksPerSecond &+ UInt64(now.tv_nsec) / (1_000_000_000 / ticksPerSecond)
        return ticks % clockTicks
    }
}
