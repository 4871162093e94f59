import XCTest

// XCTest's assertions take synchronous autoclosures; the store's reads are async. These await
// the expressions first, then assert as XCTest would (a thrown error fails the test).

func asyncAssertEqual<T: Equatable>(_ first: @autoclosure () async throws -> T, _ second: @autoclosure () async throws -> T,
                                    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) async {
    do {
        let a = try await first(), b = try await second()
        XCTAssertEqual(a, b, message(), file: file, line: line)
    } catch {
        XCTFail("threw \(error) \(message())", file: file, line: line)
    }
}

func asyncAssertTrue(_ expression: @autoclosure () async throws -> Bool, _ message: @autoclosure () -> String = "",
                     file: StaticString = #filePath, line: UInt = #line) async {
    do {
        let value = try await expression()
        XCTAssertTrue(value, message(), file: file, line: line)
    } catch {
        XCTFail("threw \(error) \(message())", file: file, line: line)
    }
}

func asyncAssertFalse(_ expression: @autoclosure () async throws -> Bool, _ message: @autoclosure () -> String = "",
                      file: StaticString = #filePath, line: UInt = #line) async {
    do {
        let value = try await expression()
        XCTAssertFalse(value, message(), file: file, line: line)
    } catch {
        XCTFail("threw \(error) \(message())", file: file, line: line)
    }
}

func asyncAssertNil<T>(_ expression: @autoclosure () async throws -> T?, _ message: @autoclosure () -> String = "",
                       file: StaticString = #filePath, line: UInt = #line) async {
    do {
        let value = try await expression()
        XCTAssertNil(value, message(), file: file, line: line)
    } catch {
        XCTFail("threw \(error) \(message())", file: file, line: line)
    }
}

func asyncAssertNotNil<T>(_ expression: @autoclosure () async throws -> T?, _ message: @autoclosure () -> String = "",
                          file: StaticString = #filePath, line: UInt = #line) async {
    do {
        let value = try await expression()
        XCTAssertNotNil(value, message(), file: file, line: line)
    } catch {
        XCTFail("threw \(error) \(message())", file: file, line: line)
    }
}

/// `XCTUnwrap` of an awaited expression.
func unwrap<T>(_ expression: @autoclosure () async throws -> T?, _ message: @autoclosure () -> String = "",
               file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    let value = try await expression()
    return try XCTUnwrap(value, message(), file: file, line: line)
}
