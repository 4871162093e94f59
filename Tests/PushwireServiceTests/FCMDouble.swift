import Foundation
import XCTest

/// Runs Scripts/fcm-double/fcm_double.py as a subprocess for one test: FCM's HTTP v1 API and the
/// OAuth2 token endpoint on one HTTP/2 TLS port, with the TLS material of the APNs double and a
/// throw-away service account (Scripts/fcm-double/make-account), made once per test run.
final class FCMDouble: PushDouble {
    static let project = "pushwire-test"
    static let clientEmail = "pushwire@pushwire-test.iam.gserviceaccount.com"
    static let keyID = "double-key-1"

    static let scriptsDirectory = APNsDouble.scriptsDirectory.deletingLastPathComponent().appendingPathComponent("fcm-double")

    nonisolated(unsafe) private static var account: Result<URL, Error>?
    private static let accountLock = NSLock()

    /// The directory of the TLS material (the APNs double's) and of account.key/account.pub.pem.
    static func materialDirectory() throws -> URL {
        let directory = try APNsDouble.materialDirectory()
        accountLock.lock()
        defer { accountLock.unlock() }
        if let account { return try account.get() }
        let made = Result<URL, Error> {
            guard APNsDouble.run(scriptsDirectory.appendingPathComponent("make-account").path, [directory.path]) == 0 else {
                throw XCTSkip("Scripts/fcm-double/make-account failed")
            }
            return directory
        }
        account = made
        return try made.get()
    }

    /// The service account's key file with its token URI at `https://127.0.0.1:<port>/token`.
    static func serviceAccountJSON(port: Int) throws -> String {
        let key = try String(contentsOf: materialDirectory().appendingPathComponent("account.key"), encoding: .utf8)
        let file: [String: String] = [
            "type": "service_account", "project_id": project, "private_key_id": keyID, "private_key": key,
            "client_email": clientEmail, "client_id": "1", "token_uri": "https://127.0.0.1:\(port)/token",
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: file), as: UTF8.self)
    }

    /// Starts the double with extra `arguments` (rules, token behaviour), on `port` (0: any).
    init(_ arguments: [String] = [], port: Int = 0, logPath: String? = nil) throws {
        let directory = try Self.materialDirectory()
        try super.init("FCM", script: Self.scriptsDirectory.appendingPathComponent("fcm_double.py"),
                       logPath: logPath ?? directory.appendingPathComponent("fcm-log-\(UUID().uuidString).jsonl").path,
                       material: directory, port: port, arguments: [
            "--public-key", directory.appendingPathComponent("account.pub.pem").path,
            "--client-email", Self.clientEmail, "--key-id", Self.keyID, "--project", Self.project,
        ] + arguments)
    }

    /// This double's service account (its token URI on this port).
    func serviceAccountJSON() throws -> String { try Self.serviceAccountJSON(port: port) }

    /// The answered sends.
    func sends() -> [[String: Any]] { records().filter { $0["kind"] as? String == "send" } }

    /// The answered token grants.
    func grants() -> [[String: Any]] { records().filter { $0["kind"] as? String == "token" } }

    /// The `message` object of a logged send.
    static func message(of record: [String: Any]) -> [String: Any]? {
        guard let body = record["body"] as? String,
              let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return object["message"] as? [String: Any]
    }
}
