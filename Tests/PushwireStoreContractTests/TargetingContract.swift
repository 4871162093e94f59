import Foundation
import PushwireStore
import XCTest

/// Who a message targets, the same on every engine: each form of targeting (everyone, hwids,
/// user ids, platforms, each kind of tag condition) alone and in combinations, checked against a
/// model of the rules (`TargetingModel`) through `targets` page by page and `batchBounds`. The
/// engines share one clause builder (`TargetingClause`) and differ only in dialect; this is what
/// would catch a dialect that changes the meaning.
extension StoreContractTests {
    func testEveryFormOfTargetingSelectsWhatTheModelSays() async throws {
        let model = TargetingModel.devices
        let targetings = TargetingModel.singleForms + TargetingModel.combinations(count: 120)
        try await forEachEngine { store in
            let app = try await store.createApplication(application("TARGM-00001"), initialCategories: [])
            for device in model {
                try await store.upsertDevice(self.device(app.id, device.hwid, type: device.type, userID: device.userID),
                                             tags: device.tags.map { .set($0.key, $0.value) })
                if device.unregistered { _ = try await store.unregisterDevice(applicationID: app.id, hwid: device.hwid) }
            }
            for targeting in targetings {
                let expected = TargetingModel.selected(targeting)
                var paged: [String] = []
                var cursor: String?
                while true {
                    let page = try await store.targets(applicationID: app.id, targeting, afterHWID: cursor, limit: 3).map(\.hwid)
                    paged += page
                    guard page.count == 3, let last = page.last else { break }
                    cursor = last
                }
                XCTAssertEqual(paged, expected, "targets of \(targeting)")
                let bounds = try await store.batchBounds(applicationID: app.id, targeting, every: 2)
                XCTAssertEqual(bounds, TargetingModel.bounds(of: expected, every: 2), "batch bounds of \(targeting)")
            }
        }
    }
}

/// The targeting rules written as plain Swift over a small set of devices, to hold each engine's
/// SQL against.
enum TargetingModel {
    struct Device {
        var hwid: String
        var type: Int32
        var userID: String
        var tags: [String: TagValueRecord]
        /// Unregistered (no push token): never a target.
        var unregistered = false
    }

    static let devices: [Device] = [
        Device(hwid: "a-ios-pro", type: 1, userID: "u1", tags: ["plan": .string("pro"), "age": .int(30), "vip": .bool(true)]),
        Device(hwid: "b-android-free", type: 3, userID: "u2", tags: ["plan": .string("free"), "age": .int(17)]),
        Device(hwid: "c-ios-list", type: 1, userID: "u3",
               tags: ["plan": .list(["pro", "beta"]), "since": .date(1_600_000_000), "vip": .bool(false)]),
        Device(hwid: "d-android-score", type: 3, userID: "u1", tags: ["score": .int(1_600_000_000), "age": .int(45)]),
        Device(hwid: "e-quoted", type: 1, userID: "u4",
               tags: ["plan": .list(["x\"y", "back\\slash", "ünï"]), "nick": .string("x\"y")]),
        Device(hwid: "f-unregistered", type: 1, userID: "u1", tags: ["plan": .string("pro"), "age": .int(30)], unregistered: true),
        Device(hwid: "g-no-tags", type: 3, userID: "u5", tags: [:]),
        Device(hwid: "h-negative", type: 1, userID: "u2", tags: ["age": .int(-5), "vip": .bool(true), "plan": .string("")]),
        Device(hwid: "z-ünicode", type: 7, userID: "u3", tags: ["plan": .string("beta"), "since": .date(1_700_000_000)]),
    ]

    static let hwidLists: [[String]] = [[], ["c-ios-list", "a-ios-pro"], ["c-ios-list", "a-ios-pro", "nobody"],
                                        ["f-unregistered", "g-no-tags"], devices.map(\.hwid), ["z-ünicode"]]
    static let userLists: [[String]] = [[], ["u1"], ["u2", "u3"], ["nobody"]]
    static let platformLists: [[Int32]] = [[], [1], [3], [1, 3], [99], [7, 3]]

    static func condition(_ tag: String, _ op: TagConditionRecord.Operator, _ values: ConditionValueRecord...) -> TagConditionRecord {
        TagConditionRecord(tag: tag, op: op, values: values)
    }

    static let conditions: [TagConditionRecord] = [
        condition("plan", .eq, .string("pro")), condition("plan", .eq, .string("beta")),
        condition("plan", .in, .string("free"), .string("beta")), condition("plan", .eq, .string("x\"y")),
        condition("plan", .eq, .string("back\\slash")), condition("plan", .eq, .string("ünï")),
        condition("plan", .eq, .string("")), condition("plan", .in, .string("nothing")),
        condition("nick", .eq, .string("x\"y")),
        condition("age", .eq, .int(30)), condition("age", .in, .int(17), .int(45)), condition("age", .gte, .int(18)),
        condition("age", .lte, .int(17)), condition("age", .between, .int(17), .int(30)),
        condition("age", .between, .int(30), .int(17)), condition("age", .between, .int(30)),
        condition("age", .gte, .string("18")), condition("age", .eq, .string("30")), condition("age", .lte, .int(-5)),
        condition("since", .lte, .int(1_650_000_000)), condition("since", .eq, .int(1_600_000_000)),
        condition("since", .gte, .int(0)), condition("score", .eq, .int(1_600_000_000)),
        condition("vip", .eq, .bool(true)), condition("vip", .eq, .bool(false)), condition("vip", .eq, .int(1)),
        condition("plan", .in, .string("pro"), .int(30)), condition("age", .in, .string("pro"), .int(30)),
        condition("nope", .eq, .string("pro")), condition("plan", .gte, .int(0)),
    ]

    /// Everyone, then each selector list and each condition alone.
    static var singleForms: [TargetingRecord] {
        var forms = [TargetingRecord()]
        forms += hwidLists.dropFirst().map { TargetingRecord(hwids: $0) }
        forms += userLists.dropFirst().map { TargetingRecord(userIDs: $0) }
        forms += platformLists.dropFirst().map { TargetingRecord(platforms: $0) }
        forms += conditions.map { TargetingRecord(conditions: [$0]) }
        return forms
    }

    /// `count` combinations of selectors and up to three conditions, the same in every run.
    static func combinations(count: Int) -> [TargetingRecord] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in
            TargetingRecord(hwids: hwidLists[next(hwidLists.count)], userIDs: userLists[next(userLists.count)],
                            platforms: platformLists[next(platformLists.count)],
                            conditions: (0..<next(4)).map { _ in conditions[next(conditions.count)] })
        }
    }

    /// The hwids `targeting` selects, in byte order.
    static func selected(_ targeting: TargetingRecord) -> [String] {
        devices.filter { selects(targeting, $0) }.map(\.hwid).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Every `every`-th target that another target follows: where the batches are cut.
    static func bounds(of targets: [String], every: Int) -> [String] {
        stride(from: every - 1, to: targets.count - 1, by: every).map { targets[$0] }
    }

    static func selects(_ targeting: TargetingRecord, _ device: Device) -> Bool {
        if device.unregistered { return false }
        if !targeting.hwids.isEmpty, !targeting.hwids.contains(where: { same($0, device.hwid) }) { return false }
        if !targeting.userIDs.isEmpty, !targeting.userIDs.contains(where: { same($0, device.userID) }) { return false }
        if !targeting.platforms.isEmpty, !targeting.platforms.contains(device.type) { return false }
        return targeting.conditions.allSatisfy { condition in
            guard let tag = device.tags[condition.tag] else { return false }
            return holds(condition, tag)
        }
    }

    /// Equal as the engines compare text: byte for byte.
    static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    static func holds(_ condition: TagConditionRecord, _ tag: TagValueRecord) -> Bool {
        switch condition.op {
        case .eq, .in:
            return condition.values.contains { value in
                switch (value, tag) {
                case (.string(let s), .string(let t)): same(s, t)
                case (.string(let s), .list(let list)): list.contains { same(s, $0) }
                case (.int(let i), .int(let t)), (.int(let i), .date(let t)): i == t
                case (.bool(let b), .bool(let t)): b == t
                default: false
                }
            }
        case .gte, .lte, .between:
            let number: Int64
            switch tag {
            case .int(let t), .date(let t): number = t
            default: return false
            }
            let bounds = condition.values.compactMap { value -> Int64? in if case .int(let i) = value { i } else { nil } }
            switch condition.op {
            case .gte: return bounds.first.map { number >= $0 } ?? false
            case .lte: return bounds.first.map { number <= $0 } ?? false
            default: return bounds.count == 2 && bounds[0] <= number && number <= bounds[1]
            }
        }
    }
}
