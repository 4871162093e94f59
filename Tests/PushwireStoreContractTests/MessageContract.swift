import Foundation
import PushwireStore
import XCTest

/// `MessageStore`: messages, the outbox, targets, taps and statistics.
extension StoreContractTests {
    func testMessagesAreCreatedOnceByTransactionID() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("MESSG-00001"), initialCategories: [])
            let other = try await store.createApplication(application("MESSG-00002"), initialCategories: [])
            let created = try await store.createMessages([newMessage(app.id, "M1", transactionID: "tx-1"), newMessage(app.id, "M2")])
            XCTAssertEqual(created.map(\.code), ["M1", "M2"])
            XCTAssertEqual(created.map(\.status), [.scheduled, .scheduled])
            XCTAssertNil(created[0].cursor)
            XCTAssertLessThan(created[0].id, created[1].id, "ids grow with creation order")
            // The same transaction id again, with other content: the stored message answers.
            let retried = try await store.createMessages([newMessage(app.id, "M1-AGAIN", transactionID: "tx-1", sendAtMS: 5)])
            XCTAssertEqual(retried, [created[0]])
            let missing = try await store.message(applicationID: app.id, code: "M1-AGAIN")
            XCTAssertNil(missing, "not created again")
            // Another application's transaction ids are its own.
            let theirs = try await store.createMessages([newMessage(other.id, "THEIRS", transactionID: "tx-1")])
            XCTAssertEqual(theirs.map(\.code), ["THEIRS"])
            // Through the callback path: the same promise.
            let result: Result<[MessageRecord], StoreError> = await withCheckedContinuation { continuation in
                store.createMessages([newMessage(app.id, "M3", transactionID: "tx-1"), newMessage(app.id, "M4")]) {
                    continuation.resume(returning: $0)
                }
            }
            let viaCallback = try result.get()
            XCTAssertEqual(viaCallback.map(\.code), ["M1", "M4"])
        }
    }

    func testATakenCodeFailsTheWholeList() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("CODES-00001"), initialCategories: [])
            _ = try await store.createMessages([newMessage(app.id, "TAKEN")])
            let error = await storeError { () async throws(StoreError) in
                try await store.createMessages([self.newMessage(app.id, "FRESH"), self.newMessage(app.id, "TAKEN")])
            }
            XCTAssertTrue(isConflict(error), "\(String(describing: error))")
            let fresh = try await store.message(applicationID: app.id, code: "FRESH")
            XCTAssertNil(fresh, "all or none")
        }
    }

    func testMessageLookups() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("LOOKS-00001"), initialCategories: [])
            let other = try await store.createApplication(application("LOOKS-00002"), initialCategories: [])
            let targeting = TargetingRecord(hwids: ["a", "b"], userIDs: ["u"], platforms: [1, 3],
                                            conditions: [TagConditionRecord(tag: "plan", op: .in, values: [.string("pro"), .string("team")])])
            let created = try await store.createMessages([newMessage(app.id, "L1", targeting: targeting), newMessage(app.id, "L2")])
            let byCode = try await store.message(applicationID: app.id, code: "L1")
            XCTAssertEqual(byCode, created[0], "read back as created, targeting included")
            let foreign = try await store.message(applicationID: other.id, code: "L1")
            XCTAssertNil(foreign, "another application's code")
            let byID = try await store.message(id: created[1].id)
            XCTAssertEqual(byID, created[1])
            let none = try await store.message(id: 999_999)
            XCTAssertNil(none)
            let several = try await store.messages(ids: [created[1].id, 999_999, created[0].id])
            XCTAssertEqual(several, [created[0].id: created[0], created[1].id: created[1]], "unknown ids left out")
        }
    }

    func testCancelOnlyCancelsScheduledMessages() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("CANCL-00001"), initialCategories: [])
            let created = try await store.createMessages([newMessage(app.id, "C1"), newMessage(app.id, "C2")])
            let first = try await store.cancelMessage(applicationID: app.id, code: "C1")
            XCTAssertEqual(first, .scheduled, "cancelled now")
            let again = try await store.cancelMessage(applicationID: app.id, code: "C1")
            XCTAssertEqual(again, .cancelled)
            let started = try await store.startSending(messageID: created[1].id, lease: nil)
            XCTAssertTrue(started)
            let sending = try await store.cancelMessage(applicationID: app.id, code: "C2")
            XCTAssertEqual(sending, .sending)
            let still = try await store.message(id: created[1].id)
            XCTAssertEqual(still?.status, .sending, "a sending message is not cancelled")
            let unknown = try await store.cancelMessage(applicationID: app.id, code: "NOPE")
            XCTAssertNil(unknown)
            let cancelledStart = try await store.startSending(messageID: created[0].id, lease: nil)
            XCTAssertFalse(cancelledStart, "a cancelled message does not start")
            let startedAgain = try await store.startSending(messageID: created[1].id, lease: nil)
            XCTAssertTrue(startedAgain, "a sending one stays sending")
            let absent = try await store.startSending(messageID: 999_999, lease: nil)
            XCTAssertFalse(absent)
        }
    }

    func testTheOutboxOrder() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("OUTBX-00001"), initialCategories: [])
            let created = try await store.createMessages([
                newMessage(app.id, "LATE", sendAtMS: 3000), newMessage(app.id, "EARLY", sendAtMS: 1000),
                newMessage(app.id, "TIE", sendAtMS: 1000), newMessage(app.id, "FUTURE", sendAtMS: 9000),
                newMessage(app.id, "SENDING", sendAtMS: 3500), newMessage(app.id, "CANCELLED", sendAtMS: 500),
                newMessage(app.id, "DONE", sendAtMS: 400),
            ])
            let id = Dictionary(uniqueKeysWithValues: created.map { ($0.code, $0.id) })
            _ = try await store.startSending(messageID: id["SENDING"] ?? 0, lease: nil)
            _ = try await store.cancelMessage(applicationID: app.id, code: "CANCELLED")
            _ = try await store.recordFanOutStep(FanOutStep(messageID: id["DONE"] ?? 0, applicationID: app.id, finish: true, startsSending: true))
            let done = try await store.message(id: id["DONE"] ?? 0)
            XCTAssertEqual(done?.status, .done)

            let due = try await store.dueMessages(nowMS: 4000, limit: 10)
            XCTAssertEqual(due.map(\.code), ["EARLY", "TIE", "LATE", "SENDING"], "by send time and creation, sending or not")
            let limited = try await store.dueMessages(nowMS: 4000, limit: 2)
            XCTAssertEqual(limited.map(\.code), ["EARLY", "TIE"])
            let ids = try await store.dueMessageIDs(nowMS: 4000, limit: 10, includeSending: true)
            XCTAssertEqual(ids, due.map(\.id))
            let scheduledOnly = try await store.dueMessageIDs(nowMS: 4000, limit: 10, includeSending: false)
            XCTAssertEqual(scheduledOnly, [id["EARLY"], id["TIE"], id["LATE"]].compactMap { $0 })
            let atTheBoundary = try await store.dueMessageIDs(nowMS: 1000, limit: 10, includeSending: false)
            XCTAssertEqual(atTheBoundary, [id["EARLY"], id["TIE"]].compactMap { $0 }, "due at its send time")
            let beforeTheSendingOne = try await store.dueMessageIDs(nowMS: 3499, limit: 10, includeSending: true)
            XCTAssertEqual(beforeTheSendingOne, [id["EARLY"], id["TIE"], id["LATE"]].compactMap { $0 },
                           "a sending one counts from its send time")
            let next = try await store.nextScheduledSendTime(after: 4000)
            XCTAssertEqual(next, 9000)
            let nextEarly = try await store.nextScheduledSendTime(after: 999)
            XCTAssertEqual(nextEarly, 1000)
            let none = try await store.nextScheduledSendTime(after: 9000)
            XCTAssertNil(none, "nothing scheduled after the last one (the sending one does not count)")
        }
    }

    func testTargetsInHWIDOrderWithKeysetPagination() async throws {
        try await forEachEngine { store in
            let hwids = ["d05", "d01", "d03", "d02", "d04", "d06"]
            let app = try await applicationWithDevices(store, "TARGT-00001", hwids)
            _ = try await store.unregisterDevice(applicationID: app.id, hwid: "d04")
            let all = TargetingRecord()
            let first = try await store.targets(applicationID: app.id, all, afterHWID: nil, limit: 2)
            XCTAssertEqual(first.map(\.hwid), ["d01", "d02"])
            XCTAssertEqual(first.first, TargetDevice(hwid: "d01", pushToken: "t-d01", language: "en", badge: 0))
            let second = try await store.targets(applicationID: app.id, all, afterHWID: "d02", limit: 2)
            XCTAssertEqual(second.map(\.hwid), ["d03", "d05"], "no token: skipped")
            let rest = try await store.targets(applicationID: app.id, all, afterHWID: "d05", limit: 2)
            XCTAssertEqual(rest.map(\.hwid), ["d06"])
            let byBytes = try await store.targets(applicationID: app.id, TargetingRecord(hwids: ["d06", "d01", "d01", "zz"]), afterHWID: nil, limit: 10)
            XCTAssertEqual(byBytes.map(\.hwid), ["d01", "d06"], "named devices once each, in hwid order")
            let unregistered = try await store.target(applicationID: app.id, hwid: "d04")
            XCTAssertEqual(unregistered?.pushToken, "", "target(hwid:) whatever the state")
            let nobody = try await store.target(applicationID: app.id, hwid: "zz")
            XCTAssertNil(nobody)
        }
    }

    func testTargetingSelectors() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("SELCT-00001"), initialCategories: [])
            try await store.upsertDevice(device(app.id, "ios-pro", type: 1, userID: "u1"), tags: [.set("plan", .string("pro")), .set("age", .int(30))])
            try await store.upsertDevice(device(app.id, "android-free", type: 3, userID: "u2"), tags: [.set("plan", .string("free")), .set("age", .int(17))])
            try await store.upsertDevice(device(app.id, "ios-list", type: 1, userID: "u3"),
                                         tags: [.set("plan", .list(["pro", "beta"])), .set("vip", .bool(true)), .set("since", .date(1_600_000_000))])
            func selected(_ targeting: TargetingRecord) async throws -> [String] {
                try await store.targets(applicationID: app.id, targeting, afterHWID: nil, limit: 10).map(\.hwid)
            }
            let platform = try await selected(TargetingRecord(platforms: [1]))
            XCTAssertEqual(platform, ["ios-list", "ios-pro"])
            let users = try await selected(TargetingRecord(userIDs: ["u2", "u3"]))
            XCTAssertEqual(users, ["android-free", "ios-list"])
            let pro = try await selected(TargetingRecord(conditions: [TagConditionRecord(tag: "plan", op: .eq, values: [.string("pro")])]))
            XCTAssertEqual(pro, ["ios-list", "ios-pro"], "a string matches a string tag or a list's element")
            let adults = try await selected(TargetingRecord(conditions: [TagConditionRecord(tag: "age", op: .gte, values: [.int(18)])]))
            XCTAssertEqual(adults, ["ios-pro"])
            let between = try await selected(TargetingRecord(conditions: [TagConditionRecord(tag: "age", op: .between, values: [.int(17), .int(30)])]))
            XCTAssertEqual(between, ["android-free", "ios-pro"], "inclusive")
            let vip = try await selected(TargetingRecord(conditions: [TagConditionRecord(tag: "vip", op: .eq, values: [.bool(true)])]))
            XCTAssertEqual(vip, ["ios-list"])
            let since = try await selected(TargetingRecord(conditions: [TagConditionRecord(tag: "since", op: .lte, values: [.int(1_700_000_000)])]))
            XCTAssertEqual(since, ["ios-list"], "dates compare as integers")
            let both = try await selected(TargetingRecord(platforms: [1], conditions: [TagConditionRecord(tag: "age", op: .lte, values: [.int(40)])]))
            XCTAssertEqual(both, ["ios-pro"], "selectors combine with AND")
        }
    }

    func testFirstTargetsOfSeveralMessages() async throws {
        try await forEachEngine { store in
            // "e\u{301}" and "é" are canonically equal but two devices; by bytes "e\u{301}" is first.
            let app = try await applicationWithDevices(store, "FIRST-00001", ["a", "b", "c", "\u{e9}", "e\u{301}"])
            let created = try await store.createMessages([
                newMessage(app.id, "F1", targeting: TargetingRecord(hwids: ["c", "a"])), newMessage(app.id, "F2"),
                newMessage(app.id, "F3", targeting: TargetingRecord(hwids: ["nobody"])),
                newMessage(app.id, "F4", targeting: TargetingRecord(hwids: ["\u{e9}", "c", "e\u{301}", "b"])),
                newMessage(app.id, "F5", targeting: TargetingRecord(hwids: ["b", "b", "a"])),
            ])
            let lists = try await store.firstTargets(of: created, limit: 2)
            XCTAssertEqual(lists.map { $0.map(\.hwid) }, [["a", "c"], ["a", "b"], [], ["b", "c"], ["a", "b"]], "each device once")
            let wider = try await store.firstTargets(of: [created[3]], limit: 4)
            XCTAssertEqual(wider.map { $0.map { Array($0.hwid.utf8) } }, [["b", "c", "e\u{301}", "\u{e9}"].map { Array($0.utf8) }],
                           "in the order of their bytes")
            // Two applications in one read: each message gets its own application's devices only.
            let other = try await applicationWithDevices(store, "FIRST-00002", ["b", "d"])
            let mixed = try await store.createMessages([
                newMessage(other.id, "G1", targeting: TargetingRecord(hwids: ["a", "b", "d"])),
                newMessage(app.id, "G2", targeting: TargetingRecord(hwids: ["d", "b", "a"])),
            ])
            let both = try await store.firstTargets(of: mixed + [created[0]], limit: 5)
            XCTAssertEqual(both.map { $0.map(\.hwid) }, [["b", "d"], ["a", "b"], ["a", "c"]], "each application's own devices")
        }
    }

    func testActionsAreRecordedOnceAndCounted() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "TAPS0-00001", ["a", "b"])
            let message = try await store.createMessages([newMessage(app.id, "T1")])[0]
            let open = ActionRecord(kind: 1, messageID: message.id, hwid: "a", buttonID: 0, textInput: "")
            let first = try await store.recordAction(open)
            XCTAssertTrue(first)
            let again = try await store.recordAction(open)
            XCTAssertFalse(again, "the same open once")
            let tap = ActionRecord(kind: 2, messageID: message.id, hwid: "a", buttonID: 1, textInput: "hello")
            let tapped = try await store.recordAction(tap)
            XCTAssertTrue(tapped)
            var retold = tap
            retold.textInput = "other text"
            let retoldRecorded = try await store.recordAction(retold)
            XCTAssertFalse(retoldRecorded, "the same tap once, whatever its text")
            let otherButton = try await store.recordAction(ActionRecord(kind: 2, messageID: message.id, hwid: "a", buttonID: 0, textInput: ""))
            XCTAssertTrue(otherButton)
            let otherDevice = try await store.recordAction(ActionRecord(kind: 2, messageID: message.id, hwid: "b", buttonID: 1, textInput: ""))
            XCTAssertTrue(otherDevice)
            let stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stats.opened, 1)
            XCTAssertEqual(stats.taps, [0: 1, 1: 2])
            let unknown = try await store.statistics(messageID: 999_999)
            XCTAssertEqual(unknown, MessageStatisticsRecord(), "all zero for an unknown message")
        }
    }

    func testTapsPerMinuteCountButtonTapsByTheMinuteTheyWereRecorded() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "TAPSM-00001", ["a", "b"])
            let message = try await store.createMessages([newMessage(app.id, "T1")])[0]
            let none = try await store.tapsPerMinute(messageID: message.id, latest: 10)
            XCTAssertEqual(none, [])
            let before = Int64(Date().timeIntervalSince1970)
            _ = try await store.recordAction(ActionRecord(kind: 1, messageID: message.id, hwid: "a", buttonID: 0, textInput: ""))
            _ = try await store.recordAction(ActionRecord(kind: 2, messageID: message.id, hwid: "a", buttonID: 1, textInput: ""))
            _ = try await store.recordAction(ActionRecord(kind: 2, messageID: message.id, hwid: "b", buttonID: 0, textInput: ""))
            let after = Int64(Date().timeIntervalSince1970)
            let minutes = try await store.tapsPerMinute(messageID: message.id, latest: 10)
            XCTAssertEqual(minutes.reduce(0) { $0 + $1.taps }, 2, "the two button taps, not the open: \(minutes)")
            XCTAssertEqual(minutes.map(\.minute), minutes.map(\.minute).sorted(), "oldest first")
            for minute in minutes {
                XCTAssertEqual(minute.minute % 60, 0)
                XCTAssertTrue((before / 60 * 60...after).contains(minute.minute), "\(minute) within [\(before), \(after)]")
            }
            let latest = try await store.tapsPerMinute(messageID: message.id, latest: 1)
            XCTAssertEqual(latest, [minutes[minutes.count - 1]], "only the latest minute")
            let unknown = try await store.tapsPerMinute(messageID: 999_999, latest: 10)
            XCTAssertEqual(unknown, [])
        }
    }
}
