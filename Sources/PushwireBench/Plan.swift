import Glibc
import PushwireClient
import PushwireWire

/// The request bytes and the mix schedule of a run, built once before the clock starts.
func makePlan(_ options: Options) -> RunPlan {
    var kinds: [RunPlan.PlannedKind] = []
    var schedule: [UInt8] = []
    for (index, entry) in options.kinds.enumerated() {
        switch entry.kind {
        case .ping:
            kinds.append(.init(name: "ping", isPing: true, request: []))
        case .unary(let name, let method, let message):
            var metadata: [(key: String, value: String)] = []
            let token = method.hasPrefix("/pushwire.v1.Admin/") ? (options.adminToken ?? options.token) : options.token
            if let token { metadata.append(("authorization", "Bearer \(token)")) }
            let request = LoadTestFrames.requestMessage(method: method, timeoutMS: options.timeoutMS, metadata: metadata, message: message)
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
        for (index, histogram) in worker.histograms.enumerated() {
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
