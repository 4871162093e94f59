#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PushwireTestSupport
import PushwireWire
import XCTest
@testable import PushwireRuntime

/// Issue 16 item 1, across connections: many connections each within its own budget must not
/// together exhaust the server's memory.
final class ServerMemoryTests: XCTestCase {
    /// Eight connections each send 3.5 MB of a 4 MB frame and stall (28 MB of input buffers, each
    /// connection within its limits): with a server total of 4 MiB, those holding more than
    /// 64 KiB stop being read once the total is reached, while a small client is still served.
    func testConnectionsTogetherStayUnderTheServersTotal() throws {
        let cap = 4 * 1024 * 1024
        let (server, address) = try startTestServer { $0.maxBufferedBytes = cap }
        defer { stop(server) }
        let length = 4_000_000
        let frame: [UInt8] = [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
            + [0x08, 0x01, 0x12] + [UInt8](repeating: 0, count: 3_500_000)
        var stallers: [TestClient] = []
        var senders: [DispatchSemaphore] = []
        for _ in 0..<8 {
            let client = try TestClient(address)
            senders.append(sendInBackground(fd: client.fd, frame))
            stallers.append(client)
        }
        waitUntilServerSettles(server)
        let peak = server.bufferedBytesStatistics.peak
        // The total, plus one buffer growth per loop in progress when it was reached (up to
        // half a frame each: 2 loops) and per connection the 64 KiB it may hold regardless, one
        // read and the 16 KiB accounting grain; 28 MB without the total.
        XCTAssertLessThanOrEqual(peak, cap + 2 * 2 * 1024 * 1024 + 8 * 160 * 1024, "bytes held for all connections: \(peak)")
        let small = try TestClient(address)
        XCTAssertEqual(try small.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        XCTAssertEqual(try small.call(TestMethods.blockingSleep.path, TestMethods.request("0")).code, .ok)
        // Closing the stallers gives their bytes back.
        for client in stallers { client.close() }
        // The senders end (EPIPE) before their descriptors are closed and maybe reused.
        for sender in senders { XCTAssertEqual(sender.wait(timeout: .now() + 10), .success) }
        stallers.removeAll()
        // The loops give the bytes back as they see each close.
        XCTAssertTrue(waitUntil(timeout: 5) { server.bufferedBytesStatistics.current < 1024 * 1024 },
                      "bytes still held after the stallers closed: \(server.bufferedBytesStatistics.current)")
    }
}
