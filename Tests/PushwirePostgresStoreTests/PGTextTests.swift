@testable import PushwirePostgresStore
import XCTest

/// PostgreSQL's array literals as the engine writes them (no database needed): every text
/// quoted, `"` and `\` escaped, NULL only for nil; integers digit by digit; parameters packed
/// for libpq.
final class PGTextTests: XCTestCase {
    func testTextArraysQuoteEveryElementAndOptionalOnesWriteNULL() {
        XCTAssertEqual(PGText.textArray([String]()), "{}")
        XCTAssertEqual(PGText.textArray(["a", "", "NULL", "b\"c", "d\\e", "f,g{}", "ünï"]),
                       #"{"a","","NULL","b\"c","d\\e","f,g{}","ünï"}"#)
        XCTAssertEqual(PGText.optionalTextArray([String?]()), "{}")
        XCTAssertEqual(PGText.optionalTextArray(["a", nil, "b\"c", ""]), #"{"a",NULL,"b\"c",""}"#)
    }

    /// The literal is what quoting each text byte by byte gives (the rule in its plainest form),
    /// for texts made of runs of plain bytes, quotes, backslashes and multi-byte characters.
    func testTextArraysMatchByteByByteQuoting() {
        func quotedByteByByte(_ values: [String?]) -> String {
            "{" + values.map { value in
                guard let value else { return "NULL" }
                return "\"" + value.map { $0 == "\"" || $0 == "\\" ? "\\\($0)" : String($0) }.joined() + "\""
            }.joined(separator: ",") + "}"
        }
        let pieces = ["a", "plain text", "\"", "\\", "ü", "{,}", " ", "NULL", "𝄞", "\"\\\""]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let values: [String?] = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                if Int.random(in: 0..<8, using: &generator) == 0 { return nil }
                return (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            }
            XCTAssertEqual(PGText.optionalTextArray(values), quotedByteByByte(values), "\(values)")
        }
    }

    /// Integer arrays are written digit by digit: the literal must be what `String(_:)` joined
    /// with commas gives, at the extremes too.
    func testIntegerArraysAreWrittenAsPostgreSQLReadsThem() {
        let values: [Int64] = [0, 7, -5, 10, 1_000_000, Int64.max, Int64.min, -1]
        XCTAssertEqual(PGText.intArray(values), "{" + values.map { String($0) }.joined(separator: ",") + "}")
        XCTAssertEqual(PGText.intArray([Int64]()), "{}")
        XCTAssertEqual(PGText.optionalIntArray([nil, -3, nil, 12]), "{NULL,-3,NULL,12}", "nil is NULL")
    }

    /// A parameter holding a NUL byte is refused before anything is sent; the others are copied
    /// whole, nil as a null pointer.
    func testPackedParametersRefuseNULAndKeepNil() {
        XCTAssertNil(PackedParameters(["ok", "a\u{0}b"]))
        XCTAssertNil(PackedParameters(["\u{0}"]))
        guard let packed = PackedParameters(["héllo", nil, "", "{\"x\",\"y\"}"]) else { return XCTFail("refused plain values") }
        let read = packed.withPointers { pointers, lengths, formats in
            XCTAssertNil(lengths, "text only: libpq reads each to its NUL")
            XCTAssertNil(formats)
            return (0..<4).map { pointers[$0].map { String(cString: $0) } }
        }
        XCTAssertEqual(read, ["héllo", nil, "", "{\"x\",\"y\"}"])
        XCTAssertNil(packed.withPointers { pointers, _, _ in pointers[4] }, "the list ends with a null pointer")
    }

    /// Binary values go as they are (a NUL byte in one is the server's to judge), with every
    /// value's length and format; text ones beside them still NUL-terminated and checked.
    func testPackedBinaryParametersCarryTheirLengthsAndFormats() {
        XCTAssertNil(PackedParameters([.binary([1, 2]), .text("a\u{0}b")]))
        guard let packed = PackedParameters([.text("ab"), .binary([0, 7, 0]), .text(nil), .binary([9])]) else {
            return XCTFail("refused plain values")
        }
        XCTAssertEqual(packed.count, 4)
        packed.withPointers { pointers, lengths, formats in
            guard let lengths, let formats else { return XCTFail("no lengths or formats with binary values") }
            XCTAssertEqual((0..<4).map { formats[$0] }, [0, 1, 0, 1])
            XCTAssertEqual(lengths[1], 3)
            XCTAssertEqual(lengths[3], 1)
            XCTAssertEqual(pointers[0].map { String(cString: $0) }, "ab")
            XCTAssertEqual(pointers[1].map { UnsafeRawPointer($0).load(fromByteOffset: 1, as: UInt8.self) }, 7)
            XCTAssertNil(pointers[2])
            XCTAssertEqual(pointers[3].map { UnsafeRawPointer($0).load(as: UInt8.self) }, 9)
        }
    }
}
