import Foundation
import PushwireWire
import XCTest

/// The multi-server test support itself: two pushwired processes on one fresh database see one
/// store, and a killed one is gone while the other keeps serving.
final class PushwiredClusterTests: XCTestCase {
    func testTwoServersShareOneDatabase() throws {
        let cluster = try PushwiredCluster(count: 1)
        defer { cluster.stopAll() }
        let a = try cluster.client(0)
        let created = try CrashRecoveryTests.createApplication(named: "shared", through: a)
        // Started after the write: what it lists comes from the database, not a cache.
        let b = try cluster.client(try cluster.addServer())
        let listed = try b.call(Methods.Admin.listApplications, ListApplicationsRequest(), token: "crash-admin", callID: 2)
        XCTAssertEqual(listed.applications.map(\.code), [created.application?.code ?? "?"])
        cluster.kill9(0)
        XCTAssertFalse(cluster.isRunning(0))
        XCTAssertTrue(cluster.isRunning(1))
        XCTAssertEqual(try b.call(Methods.Health.check, HealthCheckRequest(), callID: 3).status, .serving)
    }
}
