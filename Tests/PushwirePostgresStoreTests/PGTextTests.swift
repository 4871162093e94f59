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

    /// Integer arrays are written digit by digit: the literal must be what `String(_:)` joined
    /// with commas gives, at the extremes too.
    func testIntegerArraysAreWrittenAsPostgreSQLReadsThem() {
        let values: [Int64] = [0, 7, -5, 10, 1_000_000, Int64.max, Int64.min, -1]
        XCTAssertEqual(PGText.intArray(values), "{" + values.map { String($0) }.joined(separator: ",") + "}")
        XCTAssertEqual(PGText.intArray([Int64]()), "{}")
    }

    /// A parameter holding a NUL byte is refused before anything is sent; the others are copied
    /// whole, nil as a null pointer.
    func testPackedParametersRefuseNULAndKeepNil() {
        XCTAssertNil(PackedCStrings(["ok", "a\u{0}b"]))
        XCTAssertNil(PackedCStrings(["\u{0}"]))
        guard let packed = PackedCStrings(["héllo", nil, "", "{\"x\",\"y\"}"]) else { return XCTFail("refused plain values") }
        let read = packed.withPointers { pointers in
            (0..<4).map { pointers[$0].map { String(cString: $0) } }
        }
        XCTAssertEqual(read, ["héllo", nil, "", "{\"x\",\"y\"}"])
        XCTAssertNil(packed.withPointers { $0[4] }, "the list ends with a null pointer")
    }
}
