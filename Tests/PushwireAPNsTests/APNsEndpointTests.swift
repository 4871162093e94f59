import XCTest

@testable import PushwireAPNs

/// The nghttp2 transport's reading of the base URL: what it resolves, verifies and sends as
/// `:authority`.
final class APNsEndpointTests: XCTestCase {
    func testApplesHostsIPLiteralsAndPorts() throws {
        let apple = try XCTUnwrap(APNsEndpoint(baseURL: "https://api.sandbox.push.apple.com"))
        XCTAssertEqual(describe(apple), describe("api.sandbox.push.apple.com", 443, "api.sandbox.push.apple.com", false))
        let v4 = try XCTUnwrap(APNsEndpoint(baseURL: "https://127.0.0.1:8443/"))
        XCTAssertEqual(describe(v4), describe("127.0.0.1", 8443, "127.0.0.1:8443", true))
        let v6 = try XCTUnwrap(APNsEndpoint(baseURL: "https://[::1]:8443"))
        XCTAssertEqual(describe(v6), describe("::1", 8443, "[::1]:8443", true))
        XCTAssertEqual(APNsEndpoint(baseURL: "https://localhost:2197")?.isIPLiteral, false)
    }

    private func describe(_ endpoint: APNsEndpoint) -> String {
        describe(endpoint.host, endpoint.port, endpoint.authority, endpoint.isIPLiteral)
    }

    private func describe(_ host: String, _ port: UInt16, _ authority: String, _ isIPLiteral: Bool) -> String {
        "\(host) \(port) \(authority) \(isIPLiteral ? "ip" : "name")"
    }

    func testAnythingButHTTPSHostPortIsRefused() {
        for url in ["http://127.0.0.1:8443", "https://", "https://:443", "https://host:0", "https://host:99999", "https://[::1", "https://[::1]x"] {
            XCTAssertNil(APNsEndpoint(baseURL: url), url)
        }
    }

    func testTheGatewayRefusesABaseURLItCannotUse() throws {
        let credentials = try APNsCredentials(teamID: APNsDouble.teamID, keyID: APNsDouble.keyID, topic: APNsDouble.topic,
                                              p8PEM: APNsDouble.p8(), environment: .production)
        XCTAssertThrowsError(try APNsGateway(credentials: credentials, configuration: APNsConfiguration(baseURLOverride: "http://127.0.0.1:1"))) {
            guard case APNsGatewayError.transport(let why) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(why.contains("http://127.0.0.1:1"), why)
        }
    }
}
