import XCTest
import PushwireWire

/// `HotFrames.isPlainASCII`, which reads eight bytes at a time, against its rule read a byte
/// at a time: every length up to three words, each kind of byte at each position, and random text.
final class PlainASCIITests: XCTestCase {
    private static func byByte(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 != 0 && $0 < 0x80 }
    }

    private static func scanned(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { HotFrames.isPlainASCII($0) }
    }

    func testEveryPositionAndByteKind() {
        // 0x00 and 0x80 are the edges of the rule, 0x01 and 0x7F the edges of what passes, 0xFF
        // the top; 0x81 after a 0x00 is where a borrow would show if the zero test were wrong.
        for length in 0 ... 24 {
            let plain = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            XCTAssertTrue(Self.scanned(plain), "length \(length)")
            for position in 0 ..< length {
                for byte: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x81] {
                    var bytes = plain
                    bytes[position] = byte
                    if position + 1 < length, byte == 0x00 { bytes[position + 1] = 0x01 }
                    XCTAssertEqual(Self.scanned(bytes), Self.byByte(bytes), "length \(length), byte \(byte) at \(position)")
                }
            }
        }
    }

    func testRandomText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 20_000 {
            let length = Int.random(in: 0 ... 40, using: &generator)
            // Mostly plain text with now and then one byte from the whole range.
            let bytes = (0 ..< length).map { _ in
                Int.random(in: 0 ..< 16, using: &generator) == 0 ? UInt8.random(in: 0 ... 255, using: &generator)
                    : UInt8.random(in: 1 ... 0x7F, using: &generator)
            }
            XCTAssertEqual(Self.scanned(bytes), Self.byByte(bytes), "\(bytes)")
        }
    }
}
