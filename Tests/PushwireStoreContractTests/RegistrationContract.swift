import Foundation
import PushwireStore
import Synchronization
import XCTest

/// `PushwireStore`: applications, devices, tags, categories, health and closing.
extension StoreContractTests {
    func testApplicationsAreCreatedWithTheirCategoriesAndListedInCreationOrder() async throws {
        try await forEachEngine { store in
            let first = try await store.createApplication(application("AAAAA-00001", name: "first"),
                                                          initialCategories: [category("YesNo"), category("Rate", labels: ["1", "2", "3"])])
            let second = try await store.createApplication(application("AAAAA-00002", name: "second"), initialCategories: [])
            XCTAssertLessThan(first.id, second.id, "ids grow with creation order")
            XCTAssertEqual(first.categoriesVersion, 1)
            XCTAssertEqual(first.code, "AAAAA-00001")
            XCTAssertEqual(first.accessTokenHash, Array("hash-AAAAA-00001".utf8))
            let listed = try await store.listApplications()
            XCTAssertEqual(listed.map(\.code), ["AAAAA-00001", "AAAAA-00002"])
            XCTAssertEqual(listed.first, first, "listed as created")
            let set = try await store.categories(applicationID: first.id)
            XCTAssertEqual(set.version, 1)
            XCTAssertEqual(set.categories.map(\.name), ["YesNo", "Rate"], "in id order, which is creation order")
            XCTAssertEqual(set.categories.map { $0.buttons.map(\.label) }, [["Yes", "No"], ["1", "2", "3"]])
            XCTAssertNotEqual(set.categories[0].id, 0, "ids assigned")
            let none = try await store.categories(applicationID: second.id)
            XCTAssertEqual(none.categories, [])
        }
    }

    func testATakenApplicationCodeIsAConflictAndCreatesNothing() async throws {
        try await forEachEngine { store in
            _ = try await store.createApplication(application("TAKEN-00001"), initialCategories: [category("YesNo")])
            let error = await storeError { () async throws(StoreError) in
                try await store.createApplication(self.application("TAKEN-00001", name: "again"), initialCategories: [self.category("Other")])
            }
            XCTAssertTrue(isConflict(error), "\(String(describing: error))")
            let listed = try await store.listApplications()
            XCTAssertEqual(listed.map(\.name), ["app"], "the first one stays as it was")
            let set = try await store.categories(applicationID: listed[0].id)
            XCTAssertEqual(set.categories.map(\.name), ["YesNo"], "the second one's categories were not created either")
        }
    }

    func testUpdateApplicationChangesOnlyWhatItSets() async throws {
        try await forEachEngine { store in
            let created = try await store.createApplication(application("UPDAT-00001"), initialCategories: [])
            let apns = APNsSettingsRecord(teamID: "TEAM", keyID: "KEY", topic: "com.example", privateKeyP8: "PEM", environment: 1)
            let renamed = try await store.updateApplication(code: created.code, ApplicationUpdate(name: "renamed", apns: .some(apns)))
            XCTAssertEqual(renamed.name, "renamed")
            XCTAssertEqual(renamed.apns, apns)
            XCTAssertEqual(renamed.accessTokenHash, created.accessTokenHash, "the token hash stays")
            let rotated = try await store.updateApplication(code: created.code, ApplicationUpdate(apns: .some(nil), accessTokenHash: [1, 2, 3]))
            XCTAssertEqual(rotated.name, "renamed", "the name stays")
            XCTAssertNil(rotated.apns, "cleared")
            XCTAssertEqual(rotated.accessTokenHash, [1, 2, 3])
            let listed = try await store.listApplications()
            XCTAssertEqual(listed, [rotated], "read back as returned")
            let error = await storeError { () async throws(StoreError) in
                try await store.updateApplication(code: "NOONE-00000", ApplicationUpdate(name: "x"))
            }
            XCTAssertTrue(isNotFound(error), "\(String(describing: error))")
        }
    }

    func testDevicesAreUpsertedByApplicationAndHWID() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("DEVIC-00001"), initialCategories: [])
            let other = try await store.createApplication(application("DEVIC-00002"), initialCategories: [])
            let none = try await store.device(applicationID: app.id, hwid: "d1")
            XCTAssertNil(none)
            try await store.upsertDevice(device(app.id, "d1", token: "aa", language: "en"), tags: [])
            try await store.upsertDevice(device(other.id, "d1", token: "bb", language: "de"), tags: [])
            let replaced = device(app.id, "d1", token: "cc", type: 3, language: "fr", userID: "u1")
            try await store.upsertDevice(replaced, tags: [])
            let read = try await store.device(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(read, replaced, "replaced whole")
            let others = try await store.device(applicationID: other.id, hwid: "d1")
            XCTAssertEqual(others?.pushToken, "bb", "another application's device with the same hwid is another device")
        }
    }

    func testHWIDsAreComparedByTheirBytes() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("BYTES-00001"), initialCategories: [])
            let precomposed = "\u{E9}", decomposed = "e\u{301}"  // equal as Swift Strings
            try await store.upsertDevice(device(app.id, precomposed, token: "01"), tags: [])
            try await store.upsertDevice(device(app.id, decomposed, token: "02"), tags: [])
            let first = try await store.device(applicationID: app.id, hwid: precomposed)
            let second = try await store.device(applicationID: app.id, hwid: decomposed)
            XCTAssertEqual(first?.pushToken, "01")
            XCTAssertEqual(second?.pushToken, "02")
            XCTAssertEqual(second.map { Array($0.hwid.utf8) }, Array(decomposed.utf8), "stored as given")
            let known = try await store.knownDevices(applicationID: app.id, hwids: [decomposed, "nobody", decomposed])
            XCTAssertEqual(known.map { Array($0.utf8) }, [Array(decomposed.utf8)], "each once, by bytes")
        }
    }

    func testAnUpsertWhoseTagsCannotApplyChangesNothing() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("ATOMI-00001"), initialCategories: [])
            try await store.upsertDevice(device(app.id, "d1", token: "before"), tags: [.set("plan", .string("free"))])
            let error = await storeError { () async throws(StoreError) in
                try await store.upsertDevice(self.device(app.id, "d1", token: "after"), tags: [.set("level", .int(1)), .increment("plan", 1)])
            }
            XCTAssertTrue(isInvalidChange(error), "\(String(describing: error))")
            let read = try await store.device(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(read?.pushToken, "before", "the device was not replaced")
            let tags = try await store.tags(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(tags, [TagRecord(name: "plan", value: .string("free"))], "no tag changed")
        }
    }

    func testTheCallbackUpsertCompletesOnceWhenDurable() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("CALLB-00001"), initialCategories: [])
            let record = device(app.id, "cb")
            let calls: [StoreError?] = await withCheckedContinuation { continuation in
                store.upsertDevice(record) { error in continuation.resume(returning: [error]) }
            }
            XCTAssertEqual(calls.count, 1)
            XCTAssertNil(calls[0] ?? nil)
            let read = try await store.device(applicationID: app.id, hwid: "cb")
            XCTAssertEqual(read, record, "readable once completed")
            // The same values again: still completes (the row may be left untouched).
            let again: StoreError? = await withCheckedContinuation { continuation in
                store.upsertDevice(record) { continuation.resume(returning: $0) }
            }
            XCTAssertNil(again)
        }
    }

    func testUnregisterClearsTheTokenAndKeepsTheDevice() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("UNREG-00001"), initialCategories: [])
            let missing = try await store.unregisterDevice(applicationID: app.id, hwid: "nobody")
            XCTAssertFalse(missing)
            try await store.upsertDevice(device(app.id, "d1", token: "aa"), tags: [.set("plan", .string("pro"))])
            let found = try await store.unregisterDevice(applicationID: app.id, hwid: "d1")
            XCTAssertTrue(found)
            let read = try await store.device(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(read?.pushToken, "", "the token is cleared")
            let tags = try await store.tags(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(tags?.count, 1, "the tags stay")
            let known = try await store.knownDevices(applicationID: app.id, hwids: ["d1"])
            XCTAssertEqual(known, ["d1"], "still known")
        }
    }

    func testSetBadgeStoresTheBadgeIncrementsCountFrom() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("BADGE-00001"), initialCategories: [])
            let missing = try await store.setBadge(applicationID: app.id, hwid: "nobody", badge: 3)
            XCTAssertFalse(missing)
            try await store.upsertDevice(device(app.id, "d1", token: "aa"), tags: [])
            let found = try await store.setBadge(applicationID: app.id, hwid: "d1", badge: 5)
            XCTAssertTrue(found)
            let target = try await store.target(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(target?.badge, 5)
            // A registration of the same device leaves the badge alone.
            try await store.upsertDevice(device(app.id, "d1", token: "bb"), tags: [])
            let targets = try await store.targets(applicationID: app.id, TargetingRecord(), afterHWID: nil, limit: 10)
            XCTAssertEqual(targets.map(\.badge), [5])
            XCTAssertEqual(targets.map(\.pushToken), ["bb"])
            // Another application's device of the same hwid is another device.
            let other = try await store.createApplication(application("BADGE-00002"), initialCategories: [])
            let elsewhere = try await store.setBadge(applicationID: other.id, hwid: "d1", badge: 9)
            XCTAssertFalse(elsewhere)
        }
    }

    func testTokenlessDevicesAreTheKnownOnesWithAnEmptyToken() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("TOKNL-00001"), initialCategories: [])
            try await store.upsertDevice(device(app.id, "live", token: "aa"), tags: [])
            try await store.upsertDevice(device(app.id, "bare", token: ""), tags: [])
            try await store.upsertDevice(device(app.id, "gone", token: "bb"), tags: [])
            _ = try await store.unregisterDevice(applicationID: app.id, hwid: "gone")
            let tokenless = try await store.tokenlessDevices(applicationID: app.id, hwids: ["live", "bare", "nobody", "gone", "bare"])
            XCTAssertEqual(Set(tokenless), ["bare", "gone"])
            XCTAssertEqual(tokenless.count, 2, "each once")
            let none = try await store.tokenlessDevices(applicationID: app.id, hwids: [])
            XCTAssertEqual(none, [])
        }
    }

    func testTagChangesApplyInOrderAllOrNothing() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("TAGS0-00001"), initialCategories: [])
            let unknown = await storeError { () async throws(StoreError) in
                try await store.updateTags(applicationID: app.id, hwid: "nobody", [.set("a", .int(1))])
            }
            XCTAssertTrue(isNotFound(unknown), "\(String(describing: unknown))")
            let none = try await store.tags(applicationID: app.id, hwid: "nobody")
            XCTAssertNil(none, "no such device")
            try await store.upsertDevice(device(app.id, "d1"), tags: [])
            let empty = try await store.tags(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(empty, [], "a device without tags")
            let after = try await store.updateTags(applicationID: app.id, hwid: "d1", [
                .set("zeta", .bool(true)), .increment("count", 2), .increment("count", 3), .set("list", .list(["x", "y"])),
                .set("when", .date(1_700_000_000)), .set("gone", .string("soon")), .remove("gone"),
            ])
            let expected = [TagRecord(name: "count", value: .int(5)), TagRecord(name: "list", value: .list(["x", "y"])),
                            TagRecord(name: "when", value: .date(1_700_000_000)), TagRecord(name: "zeta", value: .bool(true))]
            XCTAssertEqual(after, expected, "applied in order, returned by name")
            let failed = await storeError { () async throws(StoreError) in
                try await store.updateTags(applicationID: app.id, hwid: "d1", [.set("new", .int(1)), .increment("zeta", 1)])
            }
            XCTAssertTrue(isInvalidChange(failed), "\(String(describing: failed))")
            let read = try await store.tags(applicationID: app.id, hwid: "d1")
            XCTAssertEqual(read, expected, "nothing of the failed change")
        }
    }

    func testCategoryChangesBumpTheVersionInTheSameTransaction() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("CATEG-00001"), initialCategories: [category("YesNo")])
            let other = try await store.createApplication(application("CATEG-00002"), initialCategories: [category("Theirs")])
            let (created, v2) = try await store.upsertCategory(applicationID: app.id, category("Rate", labels: ["1", "2"]))
            XCTAssertEqual(v2, 2)
            XCTAssertNotEqual(created.id, 0)
            let (replaced, v3) = try await store.upsertCategory(applicationID: app.id, category("Rating", id: created.id, labels: ["Good"]))
            XCTAssertEqual(v3, 3)
            XCTAssertEqual(replaced.id, created.id)
            var set = try await store.categories(applicationID: app.id)
            XCTAssertEqual(set.version, 3)
            XCTAssertEqual(set.categories.map(\.name), ["YesNo", "Rating"])
            XCTAssertEqual(set.categories.last?.buttons.map(\.label), ["Good"])

            // Failures change nothing, the version included.
            let taken = await storeError { () async throws(StoreError) in
                try await store.upsertCategory(applicationID: app.id, self.category("YesNo"))
            }
            XCTAssertTrue(isConflict(taken), "a name taken in the application: \(String(describing: taken))")
            let theirs = try await store.categories(applicationID: other.id).categories[0]
            let foreign = await storeError { () async throws(StoreError) in
                try await store.upsertCategory(applicationID: app.id, self.category("Mine", id: theirs.id))
            }
            XCTAssertTrue(isWrongApplication(foreign), "\(String(describing: foreign))")
            let missing = await storeError { () async throws(StoreError) in
                try await store.upsertCategory(applicationID: app.id, self.category("Ghost", id: 999_999))
            }
            XCTAssertTrue(isNotFound(missing), "\(String(describing: missing))")
            let deleteForeign = await storeError { () async throws(StoreError) in
                try await store.deleteCategory(applicationID: app.id, categoryID: theirs.id)
            }
            XCTAssertTrue(isWrongApplication(deleteForeign), "\(String(describing: deleteForeign))")
            let deleteMissing = await storeError { () async throws(StoreError) in
                try await store.deleteCategory(applicationID: app.id, categoryID: 999_999)
            }
            XCTAssertTrue(isNotFound(deleteMissing), "\(String(describing: deleteMissing))")
            set = try await store.categories(applicationID: app.id)
            XCTAssertEqual(set.version, 3, "no failed change bumped the version")
            let otherSet = try await store.categories(applicationID: other.id)
            XCTAssertEqual(otherSet.categories.map(\.name), ["Theirs"])
            XCTAssertEqual(otherSet.version, 1)

            let v4 = try await store.deleteCategory(applicationID: app.id, categoryID: created.id)
            XCTAssertEqual(v4, 4)
            set = try await store.categories(applicationID: app.id)
            XCTAssertEqual(set.categories.map(\.name), ["YesNo"])
            XCTAssertEqual(set.version, 4)
        }
    }

    func testACategoryForAnUnknownApplicationIsNotFound() async throws {
        try await forEachEngine { store in
            let error = await storeError { () async throws(StoreError) in
                try await store.upsertCategory(applicationID: 999_999, self.category("Orphan"))
            }
            XCTAssertTrue(isNotFound(error), "\(String(describing: error))")
            let set = try await store.categories(applicationID: 999_999)
            XCTAssertEqual(set, CategorySet(categories: [], version: 0), "an unknown application has none, version 0")
        }
    }

    /// Writes that fail (a taken name, a tag that cannot be incremented) while others are in
    /// flight fail alone: every other write of the same moment is acknowledged and stored.
    func testAFailedWriteFailsAloneAmongConcurrentOnes() async throws {
        try await forEachEngine { store in
            let app = try await store.createApplication(application("ALONE-00001"), initialCategories: [category("Taken")])
            try await store.upsertDevice(device(app.id, "str"), tags: [.set("s", .string("x"))])
            // Built here: the tasks capture values, not the test case.
            let taken = category("Taken")
            let devices = (0..<40).map { device(app.id, "dev-\($0)") }
            let messages = (0..<40).map { newMessage(app.id, "MSG-\($0)") }
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        do throws(StoreError) {
                            switch index % 4 {
                            case 0: _ = try await store.upsertCategory(applicationID: app.id, taken)
                            case 1: _ = try await store.updateTags(applicationID: app.id, hwid: "str", [.increment("s", 1)])
                            case 2: try await store.upsertDevice(devices[index], tags: [.set("n", .int(Int64(index)))])
                            default: _ = try await store.createMessages([messages[index]])
                            }
                            return (index, true)
                        } catch {
                            return (index, false)
                        }
                    }
                }
                var all: [Int: Bool] = [:]
                for await (index, succeeded) in group { all[index] = succeeded }
                return all
            }
            for (index, succeeded) in outcomes {
                XCTAssertEqual(succeeded, index % 4 >= 2, "write \(index)")
            }
            for index in stride(from: 2, to: 40, by: 4) {
                let tags = try await store.tags(applicationID: app.id, hwid: "dev-\(index)")
                XCTAssertEqual(tags, [TagRecord(name: "n", value: .int(Int64(index)))])
            }
            for index in stride(from: 3, to: 40, by: 4) {
                let message = try await store.message(applicationID: app.id, code: "MSG-\(index)")
                XCTAssertNotNil(message)
            }
            let set = try await store.categories(applicationID: app.id)
            XCTAssertEqual(set.version, 1, "no failed category write bumped the version")
            let tags = try await store.tags(applicationID: app.id, hwid: "str")
            XCTAssertEqual(tags, [TagRecord(name: "s", value: .string("x"))])
        }
    }

    func testHealthAndStatisticsAndClose() async throws {
        try await forEachEngine { store in
            XCTAssertEqual(store.health, .serving)
            let before = store.statistics.writes
            let app = try await store.createApplication(application("CLOSE-00001"), initialCategories: [])
            try await store.upsertDevice(device(app.id, "d1"), tags: [])
            XCTAssertEqual(store.statistics.writes, before + 2, "each acknowledged write counts once")
            _ = try await store.listApplications()
            XCTAssertEqual(store.statistics.writes, before + 2, "reads write nothing")
            store.close()
            store.close()  // again: nothing happens
            guard case .notServing = store.health else { return XCTFail("a closed store does not serve") }
            let write = await storeError { () async throws(StoreError) in try await store.upsertDevice(self.device(app.id, "d2"), tags: []) }
            XCTAssertTrue(isClosed(write), "\(String(describing: write))")
        }
    }
}

/// The change feed (`observeChanges`): a store is never told of its own writes (its caller
/// already knows them); what other store objects commit is the engine's own tests' business
/// (PostgresChangeFeedTests; SQLite has no other writer).
extension StoreContractTests {
    func testTheChangeFeedDoesNotReportTheStoresOwnWrites() async throws {
        try await forEachEngine { store in
            let reported = Mutex<[StoreChange]>([])
            store.observeChanges { change in reported.withLock { $0.append(change) } }
            let app = try await store.createApplication(application("OWNWR-00001"), initialCategories: [category("YesNo")])
            _ = try await store.updateApplication(code: app.code, ApplicationUpdate(name: "renamed"))
            let (stored, _) = try await store.upsertCategory(applicationID: app.id, category("Rate"))
            _ = try await store.deleteCategory(applicationID: app.id, categoryID: stored.id)
            try await store.upsertDevice(device(app.id, "d1"), tags: [])
            try await store.upsertDevice(device(app.id, "d1", token: "changed"), tags: [.set("a", .int(1))])
            let error: StoreError? = await withCheckedContinuation { continuation in
                store.upsertDevice(device(app.id, "d1", token: "again")) { continuation.resume(returning: $0) }
            }
            XCTAssertNil(error)
            _ = try await store.updateTags(applicationID: app.id, hwid: "d1", [.increment("a", 1)])
            let found = try await store.unregisterDevice(applicationID: app.id, hwid: "d1")
            XCTAssertTrue(found)
            try await Task.sleep(nanoseconds: 300_000_000)
            XCTAssertEqual(reported.withLock { $0 }, [])
        }
    }
}
