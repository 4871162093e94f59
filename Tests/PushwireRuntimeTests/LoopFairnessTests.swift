#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PushwireWire
import XCTest
@testable import PushwireRuntime

/// Issue 16 item 8: heavy requests must not stall the other connections of their loop.
final class LoopFairnessTests: XCTestCase {
    /// One loop; a client pipelines 12 requests of 1 MiB whose checks take 150 ms each (the
    /// shape of a CreateMessage of 100 notifications in 185 languages, started on the loop).
    /// Another client's Health/Check calls meanwhile stay fast: large requests are checked on the
    /// blocking threads. Before, each waited for the request being checked on the loop.
    func testLargeRequestsAreCheckedOffTheLoop() throws {
        let (server, address) = try startTestServer { $0.threads = 1 }
        defer { stop(server) }
        let heavy = try TestClient(address)
        let message = rawHealthRequest(Array("150 ".utf8) + [UInt8](repeating: 0x78, count: 1024 * 1024))
        var frames: [UInt8] = []
        for callID in UInt32(1)...12 {
            frames += rawRequestFrame(callID: callID, method: TestMethods.heavy.path, message: message)
        }
        let sent = sendInBackground(fd: heavy.fd, frames)
        let other = try TestClient(address)
        var latencies: [Double] = []
        let started = TestClient.now()
        while TestClient.now() - started < 1.0 {
            let callStarted = TestClient.now()
            XCTAssertEqual(try other.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
            latencies.append(TestClient.now() - callStarted)
            usleep(5_000)
        }
        XCTAssertEqual(sent.wait(timeout: .now() + 30), .success)
        for _ in 0..<12 { XCTAssertEqual(try heavy.readResponse(timeout: 10).code, .ok) }
        latencies.sort()
        let worst = latencies.last ?? 0
        XCTAssertLessThan(worst, 0.1, "Health/Check took up to \(Int(worst * 1000)) ms (median \(Int(latencies[latencies.count / 2] * 1_000_000)) µs)")
    }

    /// Large requests are checked on threads of their own: another client's store read does not
    /// wait behind them (on shared threads it waited for one of them, 400 ms here).
    func testBlockingCallsDoNotWaitBehindLargeRequests() throws {
        let (server, address) = try startTestServer { $0.largeRequestThreads = 2 }
        defer { stop(server) }
        let heavy = try TestClient(address)
        let message = rawHealthRequest(Array("400 ".utf8) + [UInt8](repeating: 0x78, count: 128 * 1024))
        var frames: [UInt8] = []
        for callID in UInt32(1)...8 {
            frames += rawRequestFrame(callID: callID, method: TestMethods.heavy.path, message: message)
        }
        let heavyBefore = TestMethods.heavyStarts.load(ordering: .relaxed)
        let sent = sendInBackground(fd: heavy.fd, frames)
        // Both large-request threads are busy with a check before the other client calls.
        XCTAssertTrue(waitUntil(timeout: 10) { TestMethods.heavyStarts.load(ordering: .relaxed) - heavyBefore >= 2 },
                      "the large requests did not start")
        let other = try TestClient(address)
        var worst = 0.0
        for _ in 0..<5 {
            let started = TestClient.now()
            XCTAssertEqual(try other.call(TestMethods.blockingSleep.path, TestMethods.request("0")).code, .ok)
            worst = max(worst, TestClient.now() - started)
        }
        XCTAssertEqual(sent.wait(timeout: .now() + 30), .success)
        for _ in 0..<8 { XCTAssertEqual(try heavy.readResponse(timeout: 10).code, .ok) }
        XCTAssertLessThan(worst, 0.1, "a blocking call took up to \(Int(worst * 1000)) ms")
    }
}
