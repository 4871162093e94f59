#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
import PushwireWire
@testable import PushwireRuntime

/// pushwired's `/metrics` moves as calls are made: the binary door's bytes, the messages by
/// status, the fan-out, the deliveries by gateway, platform and outcome, checked by promtool.
extension PushwiredProcessTests {
    /// The samples of an exposition by their full name with labels (`name{a="b"}`).
    private func samples(_ text: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        return values
    }

    func testMetricsMoveAsCallsAreMade() throws {
        try withPushwiredDoors(adminToken: "admin", watchdogSeconds: 30) { rpc, http in
            let client = try HTTPTestClient(http)
            func scrape() throws -> (text: String, values: [String: Double]) {
                try client.send(HTTPTestClient.request("GET", "/metrics"))
                let response = try client.readResponse()
                XCTAssertEqual(response.status, 200)
                return (response.text, samples(response.text))
            }
            let before = try scrape()
            for name in [#"pushwire_messages_total{status="scheduled"}"#, #"pushwire_messages_total{status="done"}"#,
                         "pushwire_fanout_targets_total", #"pushwire_blocking_queue_jobs{pool="blocking"}"#,
                         "pushwire_store_queued_writes", "pushwire_gateway_notifications_in_flight",
                         #"pushwire_delivery_running_messages{size="small"}"#, "pushwire_delivery_waiting_messages",
                         #"pushwire_deliveries_total{gateway="apns",platform="ios",outcome="sent"}"#,
                         #"pushwire_rpc_bytes_total{direction="received"}"#, "pushwire_connections_refused_descriptors_total",
                         "pushwire_delivery_cached_message_bytes", #"pushwire_allocator_bytes{kind="allocated"}"#,
                         #"pushwire_allocator_bytes{kind="resident"}"#] {
                XCTAssertNotNil(before.values[name], "\(name) in:\n\(before.text)")
            }

            // The binary door: a Health/Check call moves its bytes both ways.
            let rpcClient = try TestClient(rpc)
            XCTAssertEqual(try rpcClient.call(Methods.Health.check.path).code, .ok)

            let created = try client.post("/pushwire.v1.Admin/CreateApplication", json: #"{"name": "Metrics"}"#,
                                          headers: [("Authorization", "Bearer admin")])
            XCTAssertEqual(created.status, 200, created.text)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
            let code = try XCTUnwrap((object["application"] as? [String: Any])?["code"] as? String)
            let token = try XCTUnwrap(object["accessToken"] as? String)
            let registered = try client.post("/pushwire.v1.Devices/RegisterDevice", json: """
                {"application": "\(code)", "hwid": "m-1", "pushToken": "\(String(repeating: "ab", count: 32))", "deviceType": "DEVICE_TYPE_IOS"}
                """)
            XCTAssertEqual(registered.status, 200, registered.text)
            // And one through the binary door: both new devices, so both answered `.later` by the
            // raw fast path, which counts what it answers itself.
            var request = RegisterDeviceRequest()
            request.application = code
            request.hwid = "m-2"
            request.pushToken = String(repeating: "cd", count: 32)
            request.deviceType = .ios
            XCTAssertEqual(try rpcClient.call(Methods.Devices.registerDevice.path, request.encode()).code, .ok)
            let message = try client.post("/pushwire.v1.Messages/CreateMessage", json: #"{"notifications": [{"content": "Hi", "targeting": {"devices": ["m-1"]}}]}"#,
                                          headers: [("Authorization", "Bearer \(token)")])
            XCTAssertEqual(message.status, 200, message.text)

            // Delivery to the sink happens in the background: wait (bounded) for the message to be done.
            var after = try scrape()
            let deadline = Date().addingTimeInterval(10)
            while (after.values[#"pushwire_messages_total{status="done"}"#] ?? 0) < 1, Date() < deadline {
                usleep(50_000)
                after = try scrape()
            }
            func moved(_ name: String) -> Double { (after.values[name] ?? 0) - (before.values[name] ?? 0) }
            XCTAssertEqual(moved(#"pushwire_messages_total{status="scheduled"}"#), 1, after.text)
            XCTAssertEqual(moved(#"pushwire_messages_total{status="sending"}"#), 1, after.text)
            XCTAssertEqual(moved(#"pushwire_messages_total{status="done"}"#), 1, after.text)
            XCTAssertEqual(moved("pushwire_fanout_targets_total"), 1, after.text)
            XCTAssertEqual(moved(#"pushwire_deliveries_total{gateway="sink",platform="ios",outcome="sent"}"#), 1, after.text)
            XCTAssertEqual(moved(#"pushwire_calls_total{method="/pushwire.v1.Messages/CreateMessage",code="OK"}"#), 1, after.text)
            XCTAssertEqual(moved(#"pushwire_calls_total{method="/pushwire.v1.Devices/RegisterDevice",code="OK"}"#), 2, after.text)
            XCTAssertGreaterThan(moved(#"pushwire_rpc_bytes_total{direction="received"}"#), 0, after.text)
            XCTAssertGreaterThan(moved(#"pushwire_rpc_bytes_total{direction="sent"}"#), 0, after.text)
            XCTAssertEqual(after.values["pushwire_gateway_notifications_in_flight"], 0, after.text)
            // The message was handed to the scheduler in memory and taken from there when it started.
            XCTAssertEqual(after.values["pushwire_delivery_cached_message_bytes"], 0, after.text)
            XCTAssertGreaterThan(after.values[#"pushwire_allocator_bytes{kind="allocated"}"#] ?? 0, 0, after.text)
            try PromtoolCheck.check(after.text)
        }
    }
}
