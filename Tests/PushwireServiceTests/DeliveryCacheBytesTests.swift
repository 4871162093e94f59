import Foundation
import PushwireWire
import XCTest
@testable import PushwireService

/// The delivery pipeline's in-memory hand-over of created messages (records in `fresh` and the
/// scheduler's `known`, small messages' decoded specs) is bounded in bytes, not only in count:
/// large messages created faster than they are sent must not pile up in memory.
final class DeliveryCacheBytesTests: XCTestCase {
    /// A notification to one device in 20 languages of about 1 KB each: ~20 KB of spec JSON.
    private func largeNote(_ index: Int) -> PushwireWire.Notification {
        var n = note("large \(index)", devices: ["big"])
        n.localizedContent = LanguageCodes.all.sorted().prefix(20).map { localized($0, "\($0) \(index) " + String(repeating: "w", count: 1000)) }
        return n
    }

    func testLargeMessagesStayWithinTheBudgetAndAreAllSent() async throws {
        var configuration = MessagesHarness.fastConfiguration
        let budget = 256 * 1024
        configuration.maxCachedMessageBytes = budget
        // Longer than the wait below: a message left out but still under the lease it was
        // created under would be passed over by every look until the test gave up.
        configuration.leaseDuration = .seconds(120)
        let h = try await MessagesHarness(configuration: configuration)
        let app = try await h.base.createApplication()
        try await h.register(app.code, "big")
        // The scheduler is not running yet, so nothing takes the created messages: 60 of them
        // (1.2 MB of JSON, about 3.6 MB with their decoded specs) would all be kept by count.
        var codes: Set<String> = []
        for index in 0..<60 {
            var request = CreateMessageRequest()
            request.notifications = [largeNote(index)]
            codes.formUnion(try await h.messages.createMessage(request, caller: Caller(bearerToken: app.token)).messageCodes)
        }
        let held = h.pipeline.cachedMessageBytes
        XCTAssertGreaterThan(held, 0, "the first messages are handed over in memory")
        XCTAssertLessThanOrEqual(held, budget, "held \(held) bytes against a budget of \(budget)")

        // Those left out are found in the outbox: every message is sent once the scheduler runs,
        // and the hand-over's bytes come back to zero.
        h.pipeline.start()
        let deadline = Date().addingTimeInterval(30)
        var sent: Set<String> = []
        while Date() < deadline {
            sent = Set(try h.sinkLines().map(\.messageCode))
            if sent.count == codes.count, h.pipeline.cachedMessageBytes == 0 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        await h.pipeline.stop()
        XCTAssertEqual(sent, codes)
        XCTAssertEqual(h.pipeline.cachedMessageBytes, 0)
    }
}
