import Foundation
import PushwireStore
import XCTest

/// `MessageStore.listMessages`: an application's messages, newest first, by keyset pages.
extension StoreContractTests {
    func testListMessagesIsNewestFirstByPagesAndPerApplication() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("LISTS-00001"), initialCategories: [])
            let other = try await store.createApplication(application("LISTS-00002"), initialCategories: [])
            var created: [MessageRecord] = []
            for index in 0..<5 {
                created += try await store.createMessages([newMessage(app.id, "LIST-\(index)", sendAtMS: 1000 + Int64(index))])
                // Interleaved with another application's: its messages are not in the list.
                _ = try await store.createMessages([newMessage(other.id, "THEIRS-\(index)")])
            }
            _ = try await store.cancelMessage(applicationID: app.id, code: "LIST-1")
            _ = try await store.recordFanOutStep(FanOutStep(messageID: created[3].id, applicationID: app.id, targetedIncrement: 3,
                                                            startsSending: true))

            let first = try await store.listMessages(applicationID: app.id, beforeID: nil, limit: 2)
            XCTAssertEqual(first.map(\.code), ["LIST-4", "LIST-3"], "newest first")
            XCTAssertEqual(first.map(\.id), [created[4].id, created[3].id])
            XCTAssertEqual(first[1].status, .sending)
            XCTAssertEqual(first[1].targeted, 3, "counters as stored")
            XCTAssertEqual(first[0].sendAtMS, 1004)
            XCTAssertEqual(first[0].categoryID, 0)
            let second = try await store.listMessages(applicationID: app.id, beforeID: first.last?.id, limit: 2)
            XCTAssertEqual(second.map(\.code), ["LIST-2", "LIST-1"])
            XCTAssertEqual(second[1].status, .cancelled)
            let third = try await store.listMessages(applicationID: app.id, beforeID: second.last?.id, limit: 2)
            XCTAssertEqual(third.map(\.code), ["LIST-0"], "the last page is short")
            let past = try await store.listMessages(applicationID: app.id, beforeID: third.last?.id, limit: 2)
            XCTAssertEqual(past, [])
            let all = try await store.listMessages(applicationID: app.id, beforeID: nil, limit: 100)
            XCTAssertEqual(all.map(\.code), (0..<5).reversed().map { "LIST-\($0)" })
            XCTAssertEqual(all.map(\.status), [.scheduled, .sending, .scheduled, .cancelled, .scheduled])
            let theirs = try await store.listMessages(applicationID: other.id, beforeID: nil, limit: 100)
            XCTAssertEqual(theirs.map(\.code), (0..<5).reversed().map { "THEIRS-\($0)" })
            let none = try await store.listMessages(applicationID: app.id + other.id + 100, beforeID: nil, limit: 10)
            XCTAssertEqual(none, [], "an unknown application has no messages")
        }
    }
}
