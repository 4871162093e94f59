import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// Store failures reach callers as the statuses PROTOCOL.md names, whatever the engine.
final class StoreErrorMappingTests: XCTestCase {
    func testEngineFailuresMapToTheirStatuses() {
        XCTAssertEqual(StoreError.storageFull("disk full").rpcError.code, .resourceExhausted)
        XCTAssertEqual(StoreError.dataLoss("page 7").rpcError.code, .dataLoss)
        XCTAssertEqual(StoreError.unavailable("connection lost").rpcError.code, .unavailable)
        XCTAssertEqual(StoreError.closed.rpcError.code, .unavailable)
        XCTAssertEqual(StoreError.internalError("odd").rpcError.code, .internalError)
        XCTAssertEqual(StoreError.conflict("name taken").rpcError.code, .alreadyExists)
        XCTAssertTrue(StoreError.storageFull("disk full").rpcError.message.contains("nothing was written"))
    }
}
