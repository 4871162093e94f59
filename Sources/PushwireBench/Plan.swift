import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

/// The RegisterDevice template: hwid `<counter>-bench-<run>` (`benchHwid`), a valid 64-hex-digit
/// iOS token ending in the counter, `en`, UTC+1, app version 1.0. New devices send known version 0
/// (a fresh install gets the categories); a pool sends the current version (a device that already
/// has them).
func registerTemplate(setup: BenchSetup, pool: Int?, timeoutMS: UInt32) throws(SetupError) -> PatchableRequest {
    let marker = PatchableRequest.marker
    let message = RegisterDeviceRequest(
        application: setup.application, hwid: benchHwid(marker),
        pushToken: String(repeating: "a1", count: 26) + marker, deviceType: .ios, language: "en", timezone: 3600,
        appVersion: "1.0", knownCategoriesVersion: pool == nil ? 0 : setup.categoriesVersion)
    do {
        return try PatchableRequest(method: Methods.Devices.registerDevice.path, timeoutMS: timeoutMS, places: 2, message: message.encode())
    } catch {
        throw SetupError(description: "register: \(error.message)")
    }
}

/// The request bytes and the mix schedule of a run, built once before the clock starts.
func makePlan(_ options: Options, setup: BenchSetup?) throws(SetupError) -> RunPlan {
    var kinds: [RunPlan.PlannedKind] = []
    var schedule: [UInt8] = []
    for (index, entry) in options.kinds.enumerated() {
        switch entry.kind {
        case .register(let pool):
            guard let setup else { throw SetupError(description: "register: no application") }
            let template = try registerTemplate(setup: setup, pool: pool, timeoutMS: options.timeoutMS)
            kinds.append(.init(name: entry.kind.name, isPing: false, request: [], template: template, pool: UInt64(pool ?? 0)))
        case .sync:
            guard let setup else { throw SetupError(description: "sync: no application") }
            let message = SyncCategoriesRequest(application: setup.application, knownVersion: setup.categoriesVersion)
            let request = HotFrames.requestMessage(
                method: Methods.Devices.syncCategories.path, timeoutMS: options.timeoutMS, message: message.encode())
            kinds.append(.init(name: "sync", isPing: false, request: request))
        case .send(let devices):
            guard let setup else { throw SetupError(description: "send: no application") }
            guard let token = setup.token else {
                throw SetupError(description: "send: needs the application's access token: --token T with --application, or let the bench create the application")
            }
            // The hwids the zero-weight register kind registers before the clock starts.
            let hwids = (0..<devices).map { benchHwid(PatchableRequest.text(spreadKey(UInt64($0)))) }
            var notification = Notification()
            notification.content = "pushwire-bench"
            notification.targeting = Targeting(devices: hwids)
            let message = CreateMessageRequest(notifications: [notification])
            let request = HotFrames.requestMessage(
                method: Methods.Messages.createMessage.path, timeoutMS: options.timeoutMS,
                metadata: [("authorization", "Bearer \(token)")], message: message.encode())
            kinds.append(.init(name: entry.kind.name, isPing: false, request: request))
        case .ping:
            kinds.append(.init(name: "ping", isPing: true, request: []))
        case .unary(let name, let method, let message):
            var metadata: [(key: String, value: String)] = []
            let token = method.hasPrefix("/pushwire.v1.Admin/") ? (options.adminToken ?? options.token) : options.token
            if let token { metadata.append(("authorization", "Bearer \(token)")) }
            let request = HotFrames.requestMessage(method: method, timeoutMS: options.timeoutMS, metadata: metadata, message: message)
            kinds.append(.init(name: name, isPing: false, request: request))
        }
        schedule.append(contentsOf: [UInt8](repeating: UInt8(index), count: entry.weight))
    }
    // Interleave the schedule (a fixed shuffle) so a mix is mixed within every window.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for i in stride(from: schedule.count - 1, to: 0, by: -1) {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        schedule.swapAt(i, Int(state % UInt64(i + 1)))
    }
    return RunPlan(
        kinds: kinds, schedule: schedule, concurrency: options.concurrency, start: 0, measureStart: 0, end: nil,
        rate: options.rate, connections: options.connections)
}

/// Merges the workers' histograms and counters into the report.
func makeReport(options: Options, plan: RunPlan, workers: [LoadWorker], threadCount: Int) -> LoadReport {
    var total = LatencyHistogram()
    var perScenario: [String: LatencyHistogram] = [:]
    var outcomes: [String: UInt64] = [:]
    var cpu = 0.0
    var lastCompletion = plan.measureStart
    var stoppedAt = plan.measureStart
    for worker in workers {
        // Kinds with weight 0 (send's device registration) run only before the clock: not reported.
        for (index, histogram) in worker.histograms.enumerated() where plan.schedule.contains(UInt8(index)) {
            total.merge(histogram)
            perScenario[plan.kinds[index].name, default: LatencyHistogram()].merge(histogram)
        }
        for (index, n) in worker.outcomes.enumerated() where n > 0 {
            let name =
                index <= 16
                ? StatusCode(wireValue: UInt32(index)).name
                : (LoadWorker.LocalFailure(rawValue: index)?.name ?? "LOCAL_FAILURE")
            outcomes[name, default: 0] += n
        }
        cpu += worker.cpuSeconds
        lastCompletion = max(lastCompletion, worker.lastCompletion)
        stoppedAt = max(stoppedAt, worker.stoppedAt)
    }
    // Under --duration, the time measured, shorter when every connection failed early; under
    // --requests, until the last answer.
    let end = options.duration == nil ? lastCompletion : stoppedAt
    let duration = Double(end - plan.measureStart) / 1e9
    return LoadReport(
        scenario: options.scenarioName, target: options.target, connections: options.connections,
        concurrency: options.concurrency, rate: options.rate, duration: duration, latency: total, outcomes: outcomes,
        perScenario: perScenario, harnessCPUSeconds: cpu, threads: threadCount)
}

/// Writes the progress line to standard error without a newline.
func printProgress(_ text: String) {
    writeStandardError(text)
}

/// The hwid of a bench device whose counter reads `digits` (`PatchableRequest.text`, or its marker
/// in a template): the counter first, so that devices spread over the whole table, among those of
/// earlier runs too, then this run's id, so that repeated runs make new devices.
func benchHwid(_ digits: String) -> String {
    "\(digits)-bench-\(benchRunID)"
}

/// Which counter the `n`th call of a run sends: a one-to-one scramble of the 48-bit counter (an
/// odd multiplier is invertible modulo 2^48), so that successive registrations land all over the
/// devices table, as real devices' ids (random UUIDs) do, instead of each appending to the last
/// page. Scripts/sqlite-ceiling spreads its keys the same way.
@inline(__always)
func spreadKey(_ n: UInt64) -> UInt64 {
    (n &* 0x9E37_79B9_7F4B) & 0xFFFF_FFFF_FFFF
}
