@testable import PushwirePostgresStore
import PushwireTestSupport
import XCTest

/// Binary array parameters (`PGBinary`) are read by PostgreSQL as the very values of their text
/// literals (`PGText`): the two forms of each parameter, sent side by side, print the same
/// (`::text` shows the elements, NULLs and the dimension's bounds).
final class PGBinaryTests: XCTestCase {
    private var connection: PGConnection!

    override func setUpWithError() throws {
        connection = try PGConnection(url: try testDatabaseURL(), connectTimeout: 5)
    }

    /// Both forms of one parameter, as PostgreSQL prints them.
    private func printed(_ type: String, _ binary: PGParameter, _ text: String) throws -> (binary: String, text: String) {
        let rows = try connection.query("SELECT $1::\(type)::text, $2::\(type)::text", [binary, .text(text)])
        return (rows.text(0, 0), rows.text(0, 1))
    }

    func testTextArraysAreTheValuesOfTheirLiterals() throws {
        let pieces = ["a", "plain text", "\"", "\\", "ü", "{,}", " ", "NULL", "𝄞", "\"\\\"", ""]
        var generator = SystemRandomNumberGenerator()
        var cases: [[String?]] = [[], [""], [nil], ["NULL", nil, "null"], [String(repeating: "x\"y", count: 3_000)]]
        for _ in 0..<200 {
            cases.append((0..<Int.random(in: 0...8, using: &generator)).map { _ in
                if Int.random(in: 0..<6, using: &generator) == 0 { return nil }
                return (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            })
        }
        for values in cases {
            let forms = try printed("text[]", PGBinary.optionalTextArray(values), PGText.optionalTextArray(values))
            XCTAssertEqual(forms.binary, forms.text, "\(values)")
            if values.allSatisfy({ $0 != nil }) {
                let plain = values.compactMap { $0 }
                let forms = try printed("text[]", PGBinary.textArray(plain), PGText.textArray(plain))
                XCTAssertEqual(forms.binary, forms.text, "\(plain)")
            }
        }
    }

    func testIntegerAndBooleanArraysAreTheValuesOfTheirLiterals() throws {
        let extremes: [Int64] = [0, 7, -5, 10, 1_000_000, Int64.max, Int64.min, -1, 1 << 40]
        for values in [[], extremes, [42]] {
            let forms = try printed("bigint[]", PGBinary.intArray(values), PGText.intArray(values))
            XCTAssertEqual(forms.binary, forms.text)
        }
        let optional: [[Int64?]] = [[], [nil], [nil, -3, nil, 12], [Int64(Int32.max), Int64(Int32.min), 0, nil]]
        for values in optional {
            let forms = try printed("bigint[]", PGBinary.optionalIntArray(values), PGText.optionalIntArray(values))
            XCTAssertEqual(forms.binary, forms.text)
            let int4 = try printed("integer[]", PGBinary.optionalInt32Array(values), PGText.optionalIntArray(values))
            XCTAssertEqual(int4.binary, int4.text)
            if values.allSatisfy({ $0 != nil }) {
                let plain = values.compactMap { $0 }
                let forms = try printed("integer[]", PGBinary.int32Array(plain), PGText.intArray(plain))
                XCTAssertEqual(forms.binary, forms.text)
            }
        }
        for values in [[], [true], [false, true, true, false]] {
            // No engine statement takes booleans as text any more: the literal written out here.
            let literal = "{" + values.map { $0 ? "t" : "f" }.joined(separator: ",") + "}"
            let forms = try printed("boolean[]", PGBinary.boolArray(values), literal)
            XCTAssertEqual(forms.binary, forms.text)
        }
    }

    /// A binary text element holding a NUL byte is refused by the server as a text parameter is
    /// here (`22021`, which the store reports as `.invalidChange`); the connection stays usable.
    func testANULByteInABinaryTextIsRefused() throws {
        XCTAssertThrowsError(try connection.query("SELECT $1::text[]", [PGBinary.textArray(["ok", "a\u{0}b"])])) { error in
            XCTAssertEqual((error as? PGError)?.sqlstate, "22021", "\(error)")
        }
        XCTAssertThrowsError(try connection.query("SELECT $1::text[]", [.text("a\u{0}b")])) { error in
            XCTAssertEqual((error as? PGError)?.sqlstate, "22021", "\(error)")
        }
        XCTAssertEqual(try connection.query("SELECT cardinality($1::text[])", [PGBinary.textArray(["a", "b"])]).int(0, 0), 2)
    }
}
