import Foundation
import PushwireJSON
import XCTest

/// What `JSONText` writes, `JSONTextReader` reads back exactly, and `JSONSerialization` agrees.
final class JSONTextTests: XCTestCase {
    private let samples = [
        "", "plain", "quote \" and backslash \\", "line\nfeed\ttab\rreturn\u{08}\u{0C}", "\u{01}\u{1F}\u{00}",
        "unicode: é 日本 🙂", "/slash/", "\u{7F}",
    ]

    func testStringsRoundTrip() throws {
        for sample in samples {
            var out: [UInt8] = []
            JSONText.appendString(sample, to: &out)
            let text = String(decoding: out, as: UTF8.self)
            XCTAssertEqual(out.count - 2, JSONText.escapedCount(sample.utf8), "escaped length of \(sample.debugDescription)")
            let read = JSONTextReader.read(text) { reader -> String? in
                guard let value = reader.string(), reader.isAtEnd else { return nil }
                return value
            }
            XCTAssertEqual(read, sample)
            let parsed = try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [String]
            XCTAssertEqual(parsed, [sample], "valid JSON for \(sample.debugDescription)")
        }
    }

    func testIntegersAndLiterals() {
        let read = JSONTextReader.read(#"{"a":-42,"b":9007199254740993}"#) { reader -> [Int64]? in
            guard reader.literal(#"{"a":"#), let a = reader.integer(), reader.literal(#","b":"#), let b = reader.integer(),
                  reader.literal("}"), reader.isAtEnd else { return nil }
            return [a, b]
        }
        XCTAssertEqual(read, [-42, 9_007_199_254_740_993])
    }

    func testAnythingElseIsRefusedForTheCallersFallback() {
        for text in [#""unterminated"#, "\"raw\ncontrol\"", #""\u0100""#, #""\x""#, #" "leading space""#] {
            let read = JSONTextReader.read(text) { reader in reader.string() }
            XCTAssertNil(read, "refused: \(text.debugDescription)")
        }
        XCTAssertNil(JSONTextReader.read("12345678901234567890") { reader in reader.integer() }, "more digits than Int64 holds")
        XCTAssertNil(JSONTextReader.read("-") { reader in reader.integer() })
    }

    /// The word-at-a-time scan answers as the byte test does: every byte value at every offset of
    /// buffers of 0 to 24 bytes (whole words, tails, both) over ASCII and over bytes above 0x7F
    /// (which must never match), then random buffers drawn mostly from near the matching values.
    func testTheWordScanFindsExactlyTheBytesThatNeedEscaping() {
        func agrees(_ bytes: [UInt8], _ context: @autoclosure () -> String) {
            let expected = bytes.contains(where: JSONText.needsEscape)
            let scanned = bytes.withUnsafeBufferPointer(JSONText.needsEscape)
            XCTAssertEqual(scanned, expected, context())
        }
        for background: UInt8 in [0x61, 0xFF, 0x80, 0x21, 0x5D, 0xA2, 0xDC] {
            for count in 0...24 {
                agrees([UInt8](repeating: background, count: count), "clean \(count) × \(background)")
                for offset in 0..<count {
                    for byte in 0...UInt8.max {
                        var bytes = [UInt8](repeating: background, count: count)
                        bytes[offset] = byte
                        agrees(bytes, "byte \(byte) at \(offset) of \(count) × \(background)")
                    }
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        let near: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF, 0x61]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                Bool.random(using: &generator) ? near.randomElement(using: &generator)! : UInt8.random(in: 0x20...0xFF, using: &generator)
            }
            agrees(bytes, "\(bytes)")
        }
    }
}
