import Foundation
import PushwireStore

/// A fresh temporary data directory per test.
func temporaryDataDirectory(_ name: String = #function) -> String {
    let base = NSTemporaryDirectory() + "pushwire-store-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    return base
}

func sampleApplication(code: String) -> ApplicationRecord {
    ApplicationRecord(id: 0, code: code, name: "app \(code)", accessTokenHash: Array(repeating: 7, count: 32),
                      apns: nil, categoriesVersion: 0, createdAt: 1_700_000_000)
}

func sampleDevice(_ applicationID: Int64, _ hwid: String, token: String = "ab01") -> DeviceRecord {
    DeviceRecord(applicationID: applicationID, hwid: hwid, pushToken: token, deviceType: 1, language: "en",
                 timezone: 3600, userID: "u-\(hwid)", appVersion: "1.0")
}
