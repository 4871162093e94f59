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
}
