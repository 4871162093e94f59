import Foundation
import PushwireDelivery
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// Prints fan-out and CreateMessage figures for docs/BENCHMARKS.md. Not a timed test: it asserts
/// nothing about speed and runs only when asked (release build):
///   PUSHWIRE_FANOUT_PROBE=1000000 swift test -c release --filter MessagesFanOutProbe
/// `PUSHWIRE_FANOUT_PROBE_DIR` reuses a data directory that already holds the devices (the
/// registration of a million devices takes about a minute).
final class MessagesFanOutProbe: XCTestCase {
    func testFanOutToNullGatewayAndCreateMessageRate() async throws {
        guard let total = ProcessInfo.processInfo.environment["PUSHWIRE_FANOUT_PROBE"].flatMap(Int.init) else {
            throw XCTSkip("set PUSHWIRE_FANOUT_PROBE=<devices> to measure")
        }
        let directory = ProcessInfo.processInfo.environment["PUSHWIRE_FANOUT_PROBE_DIR"]
            ?? NSTemporaryDirectory() + "pushwire-fanout-probe-\(total)"
        let null = NullGateway()
        let h = try await MessagesHarness(directory: directory, gateway: null, configuration: DeliveryPipeline.Configuration())
        let app: (code: String, token: String)
        if let existing = try await h.base.store.listApplications().first {
            // Reuse the devices; the token was shown once, so rotate it.
            app = (existing.code, try await rotateToken(h, existing.code))
        } else {
            app = try await h.base.createApplication("probe")
        }
        let applicationID = try await unwrap(try await h.base.store.listApplications().first { $0.code == app.code }?.id)
        let lastHWID = String(format: "hw-%08d", total - 1)
        let registered = try await h.base.store.device(applicationID: applicationID, hwid: lastHWID) == nil ? 0 : total
        if registered < total {
            let start = ContinuousClock.now
            let store = h.base.store
            let languages = ["en", "de", "fr"]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        var i = registered + worker
                        while i < total {
                            let hwid = String(format: "hw-%08d", i)
                            try await store.upsertDevice(DeviceRecord(applicationID: applicationID, hwid: hwid,
                                                                      pushToken: String(format: "%064x", i), deviceType: 1,
                                                                      language: languages[i % 3], timezone: 0, userID: "", appVersion: "1"),
                                                         tags: [])
                            i += 64
                        }
                    }
                }
                try await group.waitForAll()
            }
            print("fanout probe: registered \(total - registered) devices in \(seconds(since: start)) s")
        }

        var n = note("Your order has shipped")
        n.localizedContent = [localized("de", "Ihre Bestellung ist unterwegs"), localized("fr", "Votre commande est partie")]
        n.title = "Shop"
        let code = try await h.create(n, token: app.token).messageCodes[0]
        let rssBefore = residentBytes()
        let peak = PeakSampler()
        let start = ContinuousClock.now
        await h.send()
        let elapsed = seconds(since: start)
        peak.stop()
        let details = try await h.details(code, token: app.token)
        print("fanout probe: devices=\(total) targeted=\(details.targeted) sent=\(details.sent) handed_to_null=\(null.accepted.notifications) seconds=\(elapsed) per_second=\(Int(Double(details.sent) / Double(elapsed)!)) rss_before_mib=\(rssBefore >> 20) rss_peak_mib=\(peak.peak >> 20) rss_growth_mib=\((max(peak.peak, rssBefore) - rssBefore) >> 20)")

        // CreateMessage to 10 explicit devices, 64 in flight (the pipeline is not running: the call alone).
        let calls = 50_000
        var ten = note("hello", devices: (0..<10).map { String(format: "hw-%08d", $0) })
        ten.title = "t"
        // Scheduled far ahead, so that a later run of the probe on the same directory does not send them.
        ten.sendAtMS = DeliveryPipeline.nowMS() + 86_400_000
        let request: CreateMessageRequest = { var r = CreateMessageRequest(); r.notifications = [ten]; return r }()
        let service = h.messages
        let caller = Caller(bearerToken: app.token)
        let createStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<64 {
                group.addTask {
                    var i = worker
                    while i < calls {
                        _ = try await service.createMessage(request, caller: caller)
                        i += 64
                    }
                }
            }
            try await group.waitForAll()
        }
        let createSeconds = seconds(since: createStart)
        print("create probe: calls=\(calls) in_flight=64 devices_per_call=10 seconds=\(createSeconds) calls_per_second=\(Int(Double(calls) / Double(createSeconds)!))")
        h.base.store.close()
    }

    private func rotateToken(_ h: MessagesHarness, _ code: String) async throws -> String {
        var update = UpdateApplicationRequest()
        update.application = code
        update.rotateAccessToken = true
        return try await h.base.admin.updateApplication(update, caller: Harness.adminCaller).accessToken
    }
}

private func seconds(since start: ContinuousClock.Instant) -> String {
    String(format: "%.3f", Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000)
}

/// The process's resident set size, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Samples RSS every 20 ms on a thread until stopped; keeps the peak.
final class PeakSampler: @unchecked Sendable {
    // @unchecked: both fields are guarded by the lock.
    private let lock = NSLock()
    private var running = true
    private var maximum = residentBytes()

    init() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let now = residentBytes()
                lock.withLock { maximum = max(maximum, now) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    var peak: Int { lock.withLock { maximum } }
    func stop() { lock.withLock { running = false } }
}
