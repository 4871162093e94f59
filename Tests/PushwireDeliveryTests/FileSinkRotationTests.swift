import Foundation
import PushwireDelivery
import XCTest

/// The sink file for operators: reopened at its path after logrotate moved it (`reopen`,
/// `reopenAll`, what pushwired does on SIGHUP), and rotated by size with a bounded number of
/// old files; no line is lost or split either way.
final class FileSinkRotationTests: XCTestCase {
    private func directory() throws -> String {
        let path = NSTemporaryDirectory() + "pushwire-rotation-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    private func notification(_ id: UInt64) -> OutgoingNotification {
        OutgoingNotification(deliveryID: id, messageCode: "3F9A1-0C77E2B4-91D0A6FF", deviceToken: String(format: "%064x", id),
                             payload: Array(#"{"aps":{"alert":{"body":"hi"}}}"#.utf8), priority: 10, expiration: 0, collapseID: "")
    }

    private func ids(_ path: String) -> [Int] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["delivery_id"] as? Int
        }
    }

    func testReopenAllWritesToANewFileAfterTheOldOneMoved() async throws {
        let path = try directory() + "/sink.jsonl"
        let sink = try FileSinkGateway(path: path, rotation: nil)
        _ = await sink.deliver([notification(1)])
        try FileManager.default.moveItem(atPath: path, toPath: path + ".old")   // what logrotate does
        _ = await sink.deliver([notification(2)])                               // still the moved file
        XCTAssertTrue(FileSinkGateway.reopenAll().isEmpty)
        _ = await sink.deliver([notification(3)])
        XCTAssertEqual(ids(path + ".old"), [1, 2])
        XCTAssertEqual(ids(path), [3])
    }

    func testRotatesBySizeKeepingTheNewestFiles() async throws {
        let path = try directory() + "/sink.jsonl"
        let lineBytes = await FileSinkGatewayLineProbe.bytes(of: notification(1))
        // Three lines a file: rotation happens once a batch takes the file to 3 lines or more.
        let sink = try FileSinkGateway(path: path, rotation: .init(maxBytes: Int64(lineBytes * 3), keep: 2))
        for id in 1...10 { _ = await sink.deliver([notification(UInt64(id))]) }
        // Written: 1-3 → rotated, 4-6 → rotated, 7-9 → rotated, 10 in the current file; keep 2.
        XCTAssertEqual(ids(path), [10])
        XCTAssertEqual(ids(path + ".1"), [7, 8, 9])
        XCTAssertEqual(ids(path + ".2"), [4, 5, 6])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".3"))
    }

    func testAReopenedSinkCountsTheSizeOfTheFileItFound() async throws {
        let path = try directory() + "/sink.jsonl"
        let lineBytes = await FileSinkGatewayLineProbe.bytes(of: notification(1))
        let first = try FileSinkGateway(path: path, rotation: nil)
        _ = await first.deliver([notification(1), notification(2)])
        // A restart with rotation at 3 lines: the file already holds 2, so one more rotates it.
        let second = try FileSinkGateway(path: path, rotation: .init(maxBytes: Int64(lineBytes * 3), keep: 1))
        _ = await second.deliver([notification(3)])
        XCTAssertEqual(ids(path + ".1"), [1, 2, 3])
        XCTAssertEqual(ids(path), [])
    }
}

/// The byte length of one notification's line, measured by writing it.
enum FileSinkGatewayLineProbe {
    static func bytes(of notification: OutgoingNotification) async -> Int {
        let path = NSTemporaryDirectory() + "pushwire-probe-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let sink = try? FileSinkGateway(path: path, rotation: nil) else { return 0 }
        _ = await sink.deliver([notification])
        return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
