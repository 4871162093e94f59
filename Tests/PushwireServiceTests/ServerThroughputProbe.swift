import Foundation
import PushwireWire
import XCTest

/// Prints call rates of a running pushwired for docs/BENCHMARKS.md: Ping, SyncCategories with a
/// matching version, RegisterDevice of new devices, RegisterDevice of unchanged devices, each with
/// 64 calls in flight on one connection; then the server's RSS. Not a timed test: it asserts
/// nothing about speed and runs only when asked (release build of pushwired and of the tests):
///   PUSHWIRED=.build/release/pushwired PUSHWIRE_SERVER_PROBE=3 swift test -c release --filter ServerThroughputProbe
/// PUSHWIRE_SERVER_PROBE_DEVICES=<n> additionally registers n devices and prints the RSS after.
final class ServerThroughputProbe: XCTestCase {
    func testCallRates() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let seconds = environment["PUSHWIRE_SERVER_PROBE"].flatMap(Double.init) else {
            throw XCTSkip("set PUSHWIRE_SERVER_PROBE=<seconds per scenario> to measure")
        }
        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let directory = NSTemporaryDirectory() + "pushwire-probe-\(getpid())-\(UUID().uuidString.prefix(8))"
        let (server, port) = try CrashRecoveryTests.startServer(path, dataDirectory: directory, skipIfSilent: true)
        defer { server.terminate(); server.waitUntilExit() }
        let client = try RawClient(port: port)
        var create = CreateApplicationRequest()
        create.name = "probe"
        let code = try XCTUnwrap(try client.call(Methods.Admin.createApplication, create, token: "crash-admin").application?.code)

        var nextID: UInt32 = 100
        /// Runs `make` calls with 64 in flight for `seconds`; returns calls/s.
        func run(_ name: String, _ make: (UInt32, Int) -> Frame) throws -> Double {
            var inFlight = 0
            var done = 0
            var failures = 0
            var sequence = 0
            let start = Date()
            let end = start.addingTimeInterval(seconds)
            while true {
                let sending = Date() < end
                while sending && inFlight < 64 {
                    nextID &+= 1
                    try client.sendFrame(make(nextID, sequence))
                    sequence += 1
                    inFlight += 1
                }
                if inFlight == 0 { break }
                let frame = try client.nextFrame()
                switch frame.kind {
                case .response(let response)?:
                    if (response.status?.code ?? 0) != 0 { failures += 1 }
                case .pong?: break
                default: continue
                }
                inFlight -= 1
                done += 1
            }
            let rate = Double(done) / Date().timeIntervalSince(start)
            print("probe \(name): calls=\(done) failures=\(failures) in_flight=64 calls_per_second=\(Int(rate))")
            return rate
        }
        func request<M: WireMessage>(_ id: UInt32, _ path: String, _ message: M) -> Frame {
            var request = Request()
            request.method = path
            request.message = message.encode()
            var frame = Frame()
            frame.callID = id
            frame.kind = .request(request)
            return frame
        }
        func registration(_ hwid: String) -> RegisterDeviceRequest {
            var r = RegisterDeviceRequest()
            r.application = code
            r.hwid = hwid
            r.pushToken = String(repeating: "ab", count: 32)
            r.deviceType = .ios
            r.language = "en"
            r.knownCategoriesVersion = 1
            return r
        }
        let ping = try run("ping") { id, _ in
            var ping = Ping()
            ping.payload = UInt64(id)
            var frame = Frame()
            frame.kind = .ping(ping)
            return frame
        }
        let sync = try run("sync-categories-matching") { id, _ in
            var r = SyncCategoriesRequest()
            r.application = code
            r.knownVersion = 1
            return request(id, Methods.Devices.syncCategories.path, r)
        }
        let newDevices = try run("register-new") { id, n in request(id, Methods.Devices.registerDevice.path, registration("new-\(n)")) }
        let unchanged = try run("register-unchanged") { id, n in
            request(id, Methods.Devices.registerDevice.path, registration("new-\(n % 1000)"))
        }
        print("probe summary: ping=\(Int(ping)) sync=\(Int(sync)) (\(String(format: "%.2f", sync / ping))x ping) register_new=\(Int(newDevices)) register_unchanged=\(Int(unchanged))")
        if let count = environment["PUSHWIRE_SERVER_PROBE_DEVICES"].flatMap(Int.init) {
            var registered = 0
            while registered < count {
                var inFlight = 0
                let batchEnd = min(count, registered + 10_000)
                for n in registered..<batchEnd {
                    nextID &+= 1
                    try client.sendFrame(request(nextID, Methods.Devices.registerDevice.path, registration("bulk-\(n)")))
                    inFlight += 1
                    if inFlight == 64 {
                        _ = try client.nextResponse()
                        inFlight -= 1
                    }
                }
                while inFlight > 0 {
                    _ = try client.nextResponse()
                    inFlight -= 1
                }
                registered = batchEnd
            }
            // Re-register all once so that every device has a fingerprint, as on a day of launches.
            let status = (try? String(contentsOfFile: "/proc/\(server.processIdentifier)/status", encoding: .utf8)) ?? ""
            let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS") } ?? "VmRSS: ?"
            print("probe rss after \(count) registered devices: \(rss)")
        }
    }
}
