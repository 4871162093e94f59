import PushwireWire
import XCTest
@testable import PushwireService

/// The one metadata rule of docs/PROTOCOL.md, over a real socket: keys are exact, and a call with
/// two `authorization` (or `application`) entries is refused whatever their order.
final class AuthMetadataTests: XCTestCase {
    func testAuthorizationEntriesAreExactAndUnique() async throws {
        let live = try await LiveServer()
        defer { live.stop() }
        let client = try live.connect()
        let a = try live.createApplication(client, name: "a", callID: 1)
        let b = try live.createApplication(client, name: "b", callID: 2)
        var callID: UInt32 = 10
        func list(_ metadata: [(key: String, value: String)]) -> Result<ListCategoriesResponse, RPCError> {
            callID += 1
            do {
                return .success(try client.call(Methods.Categories.listCategories, ListCategoriesRequest(), metadata: metadata, callID: callID))
            } catch let error as RPCError {
                return .failure(error)
            } catch {
                return .failure(RPCError(.unknown, "\(error)"))
            }
        }
        func refused(_ metadata: [(key: String, value: String)], _ code: StatusCode, _ containing: String,
                     file: StaticString = #filePath, line: UInt = #line) {
            switch list(metadata) {
            case .success: XCTFail("\(metadata) was accepted", file: file, line: line)
            case .failure(let error):
                XCTAssertEqual(error.code, code, "\(metadata): \(error.message)", file: file, line: line)
                XCTAssertTrue(error.message.contains(containing), "\(metadata): \(error.message)", file: file, line: line)
            }
        }
        let valid = ("authorization", "Bearer \(a.token)")
        // The baseline, and the scheme's case (HTTP's rule for auth schemes).
        XCTAssertNoThrow(try list([valid]).get())
        XCTAssertNoThrow(try list([("authorization", "bearer \(a.token)")]).get())
        // Two entries: refused in either order, with either a bogus or another app's valid token.
        let twice = "2 authorization metadata entries"
        refused([("authorization", "Bearer bogus"), valid], .unauthenticated, twice)
        refused([valid, ("authorization", "Bearer bogus")], .unauthenticated, twice)
        refused([("authorization", "Bearer \(b.token)"), valid], .unauthenticated, twice)
        refused([valid, ("authorization", "Bearer \(b.token)")], .unauthenticated, twice)
        refused([valid, valid], .unauthenticated, twice)
        refused([("authorization", "Basic eDp5"), valid], .unauthenticated, twice)
        // Keys are exact: another spelling is an unknown key, so the call carries no token at all…
        for key in ["Authorization", "AUTHORIZATION", "authorizatioN", " authorization"] {
            refused([(key, "Bearer \(a.token)")], .unauthenticated, "needs authorization")
        }
        // …and does not count as a second entry either.
        XCTAssertNoThrow(try list([("Authorization", "Bearer \(b.token)"), valid]).get())
        // `application` is unique too.
        refused([valid, ("application", a.code), ("application", b.code)], .unauthenticated, "2 application metadata entries")
        XCTAssertNoThrow(try list([valid, ("application", a.code)]).get())
        refused([valid, ("application", b.code)], .permissionDenied, "does not belong")
        // The Admin service reads the same rule.
        XCTAssertThrowsError(try client.call(Methods.Admin.listApplications, ListApplicationsRequest(), token: "root",
                                             metadata: [("authorization", "Bearer root")], callID: 99)) { error in
            XCTAssertEqual((error as? RPCError)?.code, .unauthenticated)
        }
    }
}
