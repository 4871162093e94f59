import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// One device's writes commit in the order they were queued, whichever kind they are: a
/// registration, then its tags or its unregistration queued before the registration's answer,
/// run after it (they all go to the device's registration writer).
final class PostgresDeviceOrderTests: XCTestCase {
    private static func device(_ applicationID: Int64, _ hwid: String, token: String) -> DeviceRecord {
        DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: 1, language: "en", timezone: 0,
                     userID: "", appVersion: "1")
    }

    /// Many new devices at once, each: register (not awaited) → set a tag → register again (not
    /// awaited) → unregister. The tag write finds the device, and the unregistration comes last:
    /// every device ends with its tag and no push token.
    func testPipelinedWritesOfOneDeviceKeepTheirOrder() async throws {
        let store = try PostgresStore(url: try freshDatabaseURL())
        defer { store.close() }
        let app = try await store.createApplication(
            ApplicationRecord(id: 0, code: "AAAAA-00032", name: "App", accessTokenHash: [1], apns: nil, categoriesVersion: 0,
                              createdAt: 1_700_000_000), initialCategories: [])
        let count = 300
        let failures = await withTaskGroup(of: String?.self) { group in
            for index in 0..<count {
                group.addTask {
                    let hwid = "order-\(index)"
                    // Each call is queued before it returns (the async ones before they suspend).
                    store.upsertDevice(Self.device(app.id, hwid, token: "first")) { _ in }
                    do {
                        _ = try await store.updateTags(applicationID: app.id, hwid: hwid, [.set("n", .int(Int64(index)))])
                    } catch {
                        return "\(hwid): tags before its registration: \(error)"
                    }
                    store.upsertDevice(Self.device(app.id, hwid, token: "second")) { _ in }
                    do {
                        guard try await store.unregisterDevice(applicationID: app.id, hwid: hwid) else { return "\(hwid): not found" }
                    } catch {
                        return "\(hwid): \(error)"
                    }
                    return nil
                }
            }
            var failures: [String] = []
            for await case let failure? in group { failures.append(failure) }
            return failures
        }
        XCTAssertEqual(failures.count, 0, "\(failures.count) of \(count): \(failures.prefix(3))")
        var wrong: [String] = []
        for index in 0..<count {
            let hwid = "order-\(index)"
            let stored = try await store.device(applicationID: app.id, hwid: hwid)
            let tags = try await store.tags(applicationID: app.id, hwid: hwid)
            if stored?.pushToken != "" || tags != [TagRecord(name: "n", value: .int(Int64(index)))] {
                wrong.append("\(hwid): token \(stored?.pushToken ?? "nil"), tags \(String(describing: tags))")
            }
        }
        XCTAssertEqual(wrong.count, 0, "\(wrong.count) of \(count): \(wrong.prefix(3))")
    }
}
