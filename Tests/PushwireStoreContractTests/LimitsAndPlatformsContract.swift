import Foundation
import PushwireStore
import XCTest

/// What the contract gained with FCM routing and the service's limits: FCM credentials per
/// application, the platform of each target and the per-platform counters, `StoreLimits` checked
/// inside the write, and the time spent in COMMIT.
extension StoreContractTests {
    func isLimitReached(_ error: StoreError?) -> Bool { if case .limitReached? = error { return true } else { return false } }

    func testTheFCMServiceAccountIsStoredUpdatedAndCleared() async throws {
        try await forEachEngine { store in
            var record = application("FCMSA-00001")
            record.fcmServiceAccount = #"{"type":"service_account","project_id":"p1"}"#
            let app = try await store.createApplication(record, initialCategories: [])
            var listed = try await store.listApplications()
            XCTAssertEqual(listed.first?.fcmServiceAccount, record.fcmServiceAccount)
            let renamed = try await store.updateApplication(code: app.code, ApplicationUpdate(name: "renamed"))
            XCTAssertEqual(renamed.fcmServiceAccount, record.fcmServiceAccount, "nil keeps it")
            let replaced = try await store.updateApplication(code: app.code, ApplicationUpdate(fcmServiceAccount: .some(#"{"project_id":"p2"}"#)))
            XCTAssertEqual(replaced.fcmServiceAccount, #"{"project_id":"p2"}"#)
            _ = try await store.updateApplication(code: app.code, ApplicationUpdate(fcmServiceAccount: .some(nil)))
            listed = try await store.listApplications()
            XCTAssertNil(listed.first?.fcmServiceAccount, ".some(nil) clears it")
        }
    }

    func testTagLimitsAreCheckedInsideTheWriteThatWouldPassThem() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "TAGLI-00001", ["d1"])
            let full = (0..<StoreLimits.maxTagsPerDevice).map { TagChange.set("t\($0)", .int(Int64($0))) }
            _ = try await store.updateTags(applicationID: app.id, hwid: "d1", full)
            let oneMore = await storeError { () async throws(StoreError) in
                try await store.updateTags(applicationID: app.id, hwid: "d1", [.set("t0", .int(-1)), .set("extra", .int(1))])
            }
            XCTAssertTrue(isLimitReached(oneMore), "\(String(describing: oneMore))")
            let tags = try await store.tags(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(tags?.count, StoreLimits.maxTagsPerDevice)
            XCTAssertEqual(tags?.first { $0.name == "t0" }?.value, .int(0), "the failed write changed nothing")
            // Replacing and removing within the limit still works.
            _ = try await store.updateTags(applicationID: app.id, hwid: "d1", [.remove("t1"), .set("other", .bool(true))])

            // Too many bytes, through a registration: neither the device's new values nor its tags are written.
            let big = String(repeating: "x", count: StoreLimits.maxTagBytesPerDevice)
            let register = await storeError { () async throws(StoreError) in
                try await store.upsertDevice(self.device(app.id, "d2", token: "t-d2"), tags: [.set("big", .string(big))])
            }
            XCTAssertTrue(isLimitReached(register), "\(String(describing: register))")
            let d2 = try await store.device(applicationID: app.id, hwid: "d2")
            XCTAssertNil(d2, "the registration that would pass the limit wrote nothing")
        }
    }

    func testTheCategoryLimitIsCheckedInsideTheWrite() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("CATLI-00001"), initialCategories: [])
            var last = CategoryRecord(id: 0, name: "", buttons: [])
            for index in 0..<StoreLimits.maxCategoriesPerApplication {
                last = try await store.upsertCategory(applicationID: app.id, category("c\(index)")).0
            }
            let before = try await store.categories(applicationID: app.id)
            let oneMore = await storeError { () async throws(StoreError) in
                try await store.upsertCategory(applicationID: app.id, self.category("extra"))
            }
            XCTAssertTrue(isLimitReached(oneMore), "\(String(describing: oneMore))")
            let after = try await store.categories(applicationID: app.id)
            XCTAssertEqual(after, before, "nothing changed, the version included")
            // Replacing one by its id is not a new one.
            _ = try await store.upsertCategory(applicationID: app.id, category("replaced", id: last.id))
        }
    }

    func testTargetsCarryTheirPlatformAndStepsAddPerPlatformCounts() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("PLATF-00001"), initialCategories: [])
            try await store.upsertDevice(device(app.id, "ios", token: "t-ios", type: 1), tags: [])
            try await store.upsertDevice(device(app.id, "android", token: "t-android", type: 3), tags: [])
            let targets = try await store.targets(applicationID: app.id, TargetingRecord(), afterHWID: nil, limit: 10)
            XCTAssertEqual(targets.map(\.deviceType), [3, 1], "in hwid order: android, ios")
            let one = try await store.target(applicationID: app.id, hwid: "android")
            XCTAssertEqual(one?.deviceType, 3)

            let message = try await store.createMessages([newMessage(app.id, "MSG-PLATF")])[0]
            let ids = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                handOver: [NewDeliveryRecord(hwid: "android", attempt: 1), NewDeliveryRecord(hwid: "ios", attempt: 1)],
                cursor: "ios", targetedIncrement: 2, startsSending: true,
                platformCounts: [PlatformCountRecord(deviceType: 3, targeted: 1), PlatformCountRecord(deviceType: 1, targeted: 1)]))
            _ = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                results: [DeliveryResultRecord(deliveryID: ids[0], hwid: "android", result: .sent),
                          DeliveryResultRecord(deliveryID: ids[1], hwid: "ios", result: .failed(reason: "BadDeviceToken", invalidToken: true, refusedToken: nil))],
                finish: true,
                platformCounts: [PlatformCountRecord(deviceType: 3, sent: 1), PlatformCountRecord(deviceType: 1, failed: 1, invalidTokens: 1),
                                 PlatformCountRecord(deviceType: 1)]))
            let stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stats.targeted, 2)
            XCTAssertEqual(stats.platforms, [PlatformCountRecord(deviceType: 1, targeted: 1, failed: 1, invalidTokens: 1),
                                             PlatformCountRecord(deviceType: 3, targeted: 1, sent: 1)], "summed, in device type order")
            XCTAssertGreaterThan(store.statistics.commitNanoseconds, 0, "the time spent committing is measured")
        }
    }

    /// A platform's counters are all its steps' counts added up, however an engine keeps them
    /// (PostgreSQL: one platform's in the message row, any other's in a table of their own). The
    /// steps cover each way: one platform first (the row's) and later (another's), two
    /// platforms in one step, steps written alone and together, and finishing steps with only
    /// sent devices (SQLite's plain finishes) of the row's platform and of another.
    func testPerPlatformCountersAddUpWhicheverPlatformTheRowCounts() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("PLATF-00002"), initialCategories: [])
            for (hwid, type) in [("a1", Int32(3)), ("i1", 1), ("i2", 1), ("i3", 1)] {
                try await store.upsertDevice(device(app.id, hwid, token: "t-\(hwid)", type: type), tags: [])
            }
            let created = try await store.createMessages([newMessage(app.id, "MSG-PL-A"), newMessage(app.id, "MSG-PL-B"),
                                                          newMessage(app.id, "MSG-PL-C")])
            let (a, b, c) = (created[0].id, created[1].id, created[2].id)
            func counts(_ type: Int32, targeted: UInt64 = 0, sent: UInt64 = 0, failed: UInt64 = 0) -> [PlatformCountRecord] {
                [PlatformCountRecord(deviceType: type, targeted: targeted, sent: sent, failed: failed)]
            }
            func sent(_ id: UInt64, _ hwid: String) -> DeliveryResultRecord { DeliveryResultRecord(deliveryID: id, hwid: hwid, result: .sent) }
            // First steps, together: A and C count iOS in the row, B Android.
            let first = try await store.recordFanOutSteps([
                FanOutStep(messageID: a, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "i1", attempt: 1), NewDeliveryRecord(hwid: "i2", attempt: 1)],
                           cursor: "i2", targetedIncrement: 2, startsSending: true, platformCounts: counts(1, targeted: 2)),
                FanOutStep(messageID: b, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a1", attempt: 1)],
                           cursor: "a1", targetedIncrement: 1, startsSending: true, platformCounts: counts(3, targeted: 1)),
                FanOutStep(messageID: c, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "i3", attempt: 1)],
                           cursor: "i3", targetedIncrement: 1, startsSending: true,
                           platformCounts: counts(1, targeted: 1) + counts(1)),
            ])
            // A: outcomes and a new target of another platform (two platforms), alone.
            let aNext = try await store.recordFanOutStep(FanOutStep(
                messageID: a, applicationID: app.id,
                results: [sent(first[0][0], "i1"), DeliveryResultRecord(deliveryID: first[0][1], hwid: "i2",
                                                                        result: .failed(reason: "Unregistered", invalidToken: false, refusedToken: nil))],
                handOver: [NewDeliveryRecord(hwid: "a1", attempt: 1)], cursor: "i9", targetedIncrement: 1,
                platformCounts: counts(1, sent: 1, failed: 1) + counts(3, targeted: 1)))
            // C: a new target of another platform alone (one platform, not the row's).
            let cNext = try await store.recordFanOutStep(FanOutStep(
                messageID: c, applicationID: app.id, results: [sent(first[2][0], "i3")],
                handOver: [NewDeliveryRecord(hwid: "a1", attempt: 1)], cursor: "i9", targetedIncrement: 1,
                platformCounts: counts(1, sent: 1) + counts(3, targeted: 1)))
            // Plain finishing steps, together: A's and C's of Android (not their rows'), B's of
            // Android (its row's).
            _ = try await store.recordFanOutSteps([
                FanOutStep(messageID: a, applicationID: app.id, results: [sent(aNext[0], "a1")], finish: true, platformCounts: counts(3, sent: 1)),
                FanOutStep(messageID: b, applicationID: app.id, results: [sent(first[1][0], "a1")], finish: true, platformCounts: counts(3, sent: 1)),
                FanOutStep(messageID: c, applicationID: app.id, results: [sent(cNext[0], "a1")], finish: true, platformCounts: counts(3, sent: 1)),
            ])
            let expected: [Int64: [PlatformCountRecord]] = [
                a: [PlatformCountRecord(deviceType: 1, targeted: 2, sent: 1, failed: 1), PlatformCountRecord(deviceType: 3, targeted: 1, sent: 1)],
                b: [PlatformCountRecord(deviceType: 3, targeted: 1, sent: 1)],
                c: [PlatformCountRecord(deviceType: 1, targeted: 1, sent: 1), PlatformCountRecord(deviceType: 3, targeted: 1, sent: 1)],
            ]
            for (id, platforms) in expected {
                let stats = try await store.statistics(messageID: id)
                XCTAssertEqual(stats.platforms, platforms, "message \(id)")
                XCTAssertEqual(stats.targeted, platforms.reduce(0) { $0 + $1.targeted }, "message \(id): the totals are the platforms' sums")
                XCTAssertEqual(stats.sent, platforms.reduce(0) { $0 + $1.sent }, "message \(id)")
            }
        }
    }
}
