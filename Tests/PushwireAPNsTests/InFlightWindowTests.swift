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
        let deadline = ContinuousClock.now + .seconds(10)
        while window.waiting == 0, ContinuousClock.now < deadline { await Task.yield() }
        XCTAssertEqual(window.waiting, 1, "the waiter never waited")
        // The waiter wakes once a batch (an eighth of the window: 2 slots) is free, not at the
        // first (a release wakes a waiter before it returns).
        window.release()
        XCTAssertEqual(window.waiting, 1, "woken at the first free slot")
        window.release()
        let granted = await waiter.value
        XCTAssertEqual(granted, 2)
        XCTAssertEqual(window.peakInUse, 16, "never more than the window")
    }
}
