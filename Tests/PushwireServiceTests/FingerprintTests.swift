import PushwireStore
import XCTest
@testable import PushwireService

final class FingerprintTests: XCTestCase {
    func testOverlappingWritesRememberNothing() async {
        let fingerprints = RegistrationFingerprints()
        fingerprints.beginWrite(key: 1)
        fingerprints.endWrite(key: 1, fingerprint: 10)
        XCTAssertTrue(fingerprints.matches(key: 1, fingerprint: 10))

        // Two writes of one device whose completions come back in the other order.
        fingerprints.beginWrite(key: 1)
        fingerprints.beginWrite(key: 1)
        fingerprints.endWrite(key: 1, fingerprint: 22)
        fingerprints.endWrite(key: 1, fingerprint: 21)
        XCTAssertFalse(fingerprints.matches(key: 1, fingerprint: 21))
        XCTAssertFalse(fingerprints.matches(key: 1, fingerprint: 22))

        // A read during a write is not remembered; after it, it is.
        fingerprints.beginWrite(key: 2)
        fingerprints.rememberStored(key: 2, fingerprint: 5)
        XCTAssertFalse(fingerprints.matches(key: 2, fingerprint: 5))
        fingerprints.endWrite(key: 2, fingerprint: nil)
        fingerprints.rememberStored(key: 2, fingerprint: 5)
        XCTAssertTrue(fingerprints.matches(key: 2, fingerprint: 5))
    }

    func testBounded() async {
        let fingerprints = RegistrationFingerprints(capacity: 100)
        for key in 0..<250 { fingerprints.rememberStored(key: key, fingerprint: key) }
        XCTAssertTrue(fingerprints.matches(key: 249, fingerprint: 249))
        XCTAssertFalse(fingerprints.matches(key: 0, fingerprint: 0))
    }

    func testConcurrentRegistrationsOfOneDeviceEndWithTheLastOne() async throws {
        let h = try await Harness()
        let app = try await h.createApplication()
        let devices = h.devices
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                group.addTask { _ = try await devices.registerDevice(registration(app.code, "same", language: i % 2 == 0 ? "en" : "fr")) }
            }
            try await group.waitForAll()
        }
        // Whatever order those committed in, registering "de" now must store "de", and then "en".
        _ = try await devices.registerDevice(registration(app.code, "same", language: "de"))
        _ = try await devices.registerDevice(registration(app.code, "same", language: "en"))
        let appID = try XCTUnwrap(h.registry.directory.application(code: app.code)?.id)
        await asyncAssertEqual(try await h.store.device(applicationID: appID, hwid: "same")?.language, "en")
    }
}
