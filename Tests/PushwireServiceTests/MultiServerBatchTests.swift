import Foundation
import PushwireWire
import XCTest

/// Issue 15 item 3, one message's fan-out shared by several servers (`FanOutBatchRecord`), with
/// real pushwired processes on one PostgreSQL database: a large message is cut into batches
/// that both servers claim and fan out (each device once, from the union of their sinks), and a
/// server that stops gracefully gives its batches up at once instead of after its lease.
final class MultiServerBatchTests: XCTestCase {
    private static let devices = 50_000

    /// Every token of `code` in the sinks of `cluster`, with the number that each server sent.
    private func deliveries(_ cluster: PushwiredCluster, _ code: String) -> (all: [String], byServer: [Int]) {
        let perServer = cluster.tokens(of: code)
        return (perServer.flatMap { $0 }, perServer.map(\.count))
    }

    /// Creates an application with `devices` devices through server 0 of `cluster`, then (with
    /// `addingB`) adds a second server (its cache loads the application) and creates one message
    /// to everyone through server 0; the message code and the application's token.
    private func messageToEveryone(_ cluster: PushwiredCluster, name: String, addingB: Bool = true) throws -> (code: String, token: String) {
        let a = try cluster.client(0)
        let created = try CrashRecoveryTests.createApplication(named: name, through: a)
        let application = try XCTUnwrap(created.application?.code)
        try registerDevices(Self.devices, application: application, through: a)
        if addingB { try cluster.addServer() }
        var request = CreateMessageRequest()
        var notification = Notification()
        notification.content = "to everyone, shared"
        request.notifications = [notification]
        let code = try XCTUnwrap(try a.call(Methods.Messages.createMessage, request, token: created.accessToken, callID: 7).messageCodes.first)
        return (code, created.accessToken)
    }

    /// A 50k-device message created on A, cut into ten batches of 5,000: A and B deliver it
    /// together, each device exactly once (the union of their sinks), each server a real share
    /// (at least one whole batch), and GetMessageDetails adds up through either server.
    func testAMessageCreatedOnAIsDeliveredByAAndBTogether() throws {
        let cluster = try PushwiredCluster(count: 1, extraArguments: ["--outbox-lease", "5s", "--fanout-batch", "5000"])
        defer { cluster.stopAll() }
        let (code, token) = try messageToEveryone(cluster, name: "shared")
        let details = try messageDetails(code, token: token, through: try cluster.client(1), timeout: 60)
        XCTAssertEqual(details.status, .done)
        XCTAssertEqual(details.targeted, UInt64(Self.devices))
        XCTAssertEqual(details.sent, UInt64(Self.devices))
        let throughA = try messageDetails(code, token: token, through: try cluster.client(0), timeout: 10)
        XCTAssertEqual(throughA.sent, details.sent, "the same counts whichever server is asked")
        let (all, byServer) = deliveries(cluster, code)
        print("multi-server shared fan-out: sinks \(byServer)")
        XCTAssertEqual(all.count, Self.devices, "every device once in the union of the sinks")
        XCTAssertEqual(Set(all).count, Self.devices, "no device twice")
        XCTAssertGreaterThanOrEqual(byServer[0], 5_000, "A fanned out at least one batch: \(byServer)")
        XCTAssertGreaterThanOrEqual(byServer[1], 5_000, "B fanned out at least one batch: \(byServer)")
    }

    /// A server stopped gracefully (SIGTERM, calls drained for 100 ms) in the middle of its two
    /// batches (25,000 devices, five steps each) gives their leases up before its store closes: a server started after it
    /// takes them over at once, well before the 30 s lease would have expired, from their
    /// cursors, and every device gets the message once.
    func testAGracefullyStoppedServersBatchesAreTakenOverAtOnce() throws {
        let cluster = try PushwiredCluster(count: 1, extraArguments: ["--outbox-lease", "30s", "--fanout-batch", "25000",
                                                                      "--drain-timeout", "100ms"])
        defer { cluster.stopAll() }
        let (code, token) = try messageToEveryone(cluster, name: "handover", addingB: false)
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline, cluster.sinkLineCount(0) == 0 { usleep(200) }
        let stoppedAt = Date()
        XCTAssertEqual(cluster.stop(0), 0, "a graceful stop")
        let linesAtStop = cluster.sinkLineCount(0)
        print("multi-server graceful stop: the stop took \(String(format: "%.1f", Date().timeIntervalSince(stoppedAt))) s")
        XCTAssertLessThan(linesAtStop, Self.devices, "stopped before it finished (raise devices if this fails)")
        try cluster.addServer()
        let details = try messageDetails(code, token: token, through: try cluster.client(1), timeout: 60)
        let took = Date().timeIntervalSince(stoppedAt)
        let (all, byServer) = deliveries(cluster, code)
        print("multi-server graceful stop: A stopped with \(linesAtStop) lines, B finished \(String(format: "%.1f", took)) s later; sinks \(byServer)")
        XCTAssertEqual(details.status, .done)
        XCTAssertLessThan(took, 20, "taken over at once, not after the 30 s lease")
        XCTAssertEqual(all.count, Set(all).count, "no device twice")
        XCTAssertEqual(details.targeted, UInt64(Self.devices))
        XCTAssertEqual(details.sent + details.failed, UInt64(Self.devices), "every target accounted for")
        XCTAssertLessThanOrEqual(details.sent, UInt64(all.count), "nothing counted sent that no sink holds")
    }
}
