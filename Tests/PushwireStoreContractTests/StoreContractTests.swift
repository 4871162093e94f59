import Foundation
import PushwireStore
import XCTest

/// What the contract suite runs against: an engine's store implements both protocols.
typealias ContractStore = PushwireStore & MessageStore

/// An engine the contract runs against: its name and how to open a fresh, empty store.
struct ContractEngine: Sendable {
    /// Shown in the log before each test's run against it.
    let name: String
    /// A fresh, empty store (a new data directory, a new database or schema).
    let makeStore: @Sendable () async throws -> any ContractStore
}

/// The store contract, written once against the protocols (`PushwireStore`, `MessageStore`) and
/// run against every engine of `contractEngines` (ContractEngines.swift): each test runs its
/// body once per engine, on a fresh, empty store of it (`forEachEngine`). An engine joins with
/// one file defining its `ContractEngine` and one entry in that list. (Not a subclass per
/// engine: XCTest's discovery on Linux finds only the test methods a class declares itself, and
/// running a test twice through `invokeTest` trips its teardown bookkeeping.)
///
/// Each test checks a promise of the protocols' doc comments: results, errors, atomicity,
/// ordering, idempotency.
final class StoreContractTests: XCTestCase {
    /// Runs `body` against a fresh, empty store of each engine in turn, closing it after; the
    /// log names the engine before its run, so that a failure below it is that engine's.
    func forEachEngine(_ body: (any ContractStore) async throws -> Void) async throws {
        if contractEngines.isEmpty { throw XCTSkip("no store engine to run the contract against") }
        for engine in contractEngines {
            print("store contract: \(name) against \(engine.name)")
            let store = try await engine.makeStore()
            do {
                try await body(store)
            } catch {
                XCTFail("\(engine.name): \(error)")
            }
            store.close()
        }
    }

    // MARK: Records used throughout

    func application(_ code: String, name: String = "app") -> ApplicationRecord {
        ApplicationRecord(id: 0, code: code, name: name, accessTokenHash: Array("hash-\(code)".utf8), apns: nil,
                          categoriesVersion: 0, createdAt: 1_700_000_000)
    }

    func device(_ applicationID: Int64, _ hwid: String, token: String = "00aa", type: Int32 = 1, language: String = "en",
                userID: String = "") -> DeviceRecord {
        DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: type, language: language,
                     timezone: 3600, userID: userID, appVersion: "1.0")
    }

    func category(_ name: String, id: UInt32 = 0, labels: [String] = ["Yes", "No"]) -> CategoryRecord {
        CategoryRecord(id: id, name: name, buttons: labels.enumerated().map { ButtonRecord(id: UInt32($0.offset), label: $0.element) })
    }

    func newMessage(_ applicationID: Int64, _ code: String, transactionID: String = "", sendAtMS: Int64 = 1000,
                    targeting: TargetingRecord = TargetingRecord()) -> NewMessageRecord {
        NewMessageRecord(applicationID: applicationID, code: code, transactionID: transactionID, sendAtMS: sendAtMS, categoryID: 0,
                         targeting: targeting, spec: "{\"content\":\"\(code)\"}")
    }

    /// The error `body` throws, or a failure when it does not throw a `StoreError`.
    func storeError<T>(_ body: () async throws(StoreError) -> T, file: StaticString = #filePath, line: UInt = #line) async -> StoreError? {
        do {
            _ = try await body()
            XCTFail("expected a StoreError", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func isNotFound(_ error: StoreError?) -> Bool { if case .notFound? = error { return true } else { return false } }
    func isConflict(_ error: StoreError?) -> Bool { if case .conflict? = error { return true } else { return false } }
    func isInvalidChange(_ error: StoreError?) -> Bool { if case .invalidChange? = error { return true } else { return false } }
    func isWrongApplication(_ error: StoreError?) -> Bool { if case .wrongApplication? = error { return true } else { return false } }
    func isClosed(_ error: StoreError?) -> Bool { if case .closed? = error { return true } else { return false } }

    /// An application with `hwids` registered (tokens "t-<hwid>").
    func applicationWithDevices(_ store: any ContractStore, _ code: String, _ hwids: [String]) async throws -> ApplicationRecord {
        let app = try await store.createApplication(application(code), initialCategories: [])
        for hwid in hwids { try await store.upsertDevice(device(app.id, hwid, token: "t-\(hwid)"), tags: []) }
        return app
    }
}
