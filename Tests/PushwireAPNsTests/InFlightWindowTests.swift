import XCTest

@testable import PushwireAPNs

/// The backpressure window, without a network.
final class InFlightWindowTests: XCTestCase {
    func testAcquireTakesWhatIsFreeAndWaitsWhenNothingIs() async {
        let window = InFlightWindow(size: 16)
        let first = await window.acquire(atMost: 10)
        XCTAssertEqual(first, 10)
        let second = await window.acquire(atMost: 10)
        XCTAssertEqual(second, 6, "only what is free")
        XCTAssertEqual(window.peakInUse, 16)

        let waiter = Task { await window.acquire(atMost: 8) }
        try? await Task.sleep(for: .milliseconds(50))
        // The waiter wakes once a batch (an eighth of the window: 2 slots) is free, not at the first.
        window.release()
        try? await Task.sleep(for: .milliseconds(50))
        window.release()
        let granted = await waiter.value
        XCTAssertEqual(granted, 2)
        XCTAssertEqual(window.peakInUse, 16, "never more than the window")
    }
}
