@testable import PushwirePostgresStore
import XCTest

/// PostgreSQL's array literals as the engine writes them (no database needed): every text
/// quoted, `"` and `\` escaped, NULL only for nil.
final class PGTextTests: XCTestCase {
    func testTextArraysQuoteEveryElementAndOptionalOnesWriteNULL() {
        XCTAssertEqual(PGText.textArray([String]()), "{}")
        XCTAssertEqual(PGText.textArray(["a", "", "NULL", "b\"c", "d\\e", "f,g{}", "ünï"]),
                       #"{"a","","NULL","b\"c","d\\e","f,g{}","ünï"}"#)
        XCTAssertEqual(PGText.optionalTextArray([String?]()), "{}")
        XCTAssertEqual(PGText.optionalTextArray(["a", nil, "b\"c", ""]), #"{"a",NULL,"b\"c",""}"#)
    }
}
