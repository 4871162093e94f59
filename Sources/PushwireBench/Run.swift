import Glibc
import PushwireClient
import PushwireSystem

/// Runs `plan` over `connections` on `threadCount` worker threads until it ends, showing the live
/// progress line when `showProgress`; returns the workers, joined, for the report.
func runWorkers(plan: RunPlan, connections: [BenchConnection], threadCount: Int, showProgress: Bool) -> [LoadWorker] {
    let live = LiveCounters()
    let workers = (0..<threadCount).map { t in
        LoadWorker(
            plan: plan, connections: connections.indices.filter { $0 % threadCount == t }.map { connections[$0] }, live: live)
    }
    var threads: [pthread_t] = []
    for worker in workers {
        guard let thread = startWorkerThread(worker) else {
            printError("pushwire-bench: pthread_create failed")
            exit(1)
        }
        threads.append(thread)
    }
    // The live progress line, on a terminal only; erased before the report.
    var lastCount: UInt64 = 0
    var lastTime = monotonicNanos()
    while showProgress, live.finishedWorkers.load(ordering: .acquiring) < workers.count {
        usleep(250_000)
        let now = monotonicNanos()
        let count = live.completed.load(ordering: .relaxed)
        let rate = Double(count - lastCount) / (Double(now - lastTime) / 1e9)
        let phase = now < plan.measureStart ? "warming up" : "\(count) calls done"
        printProgress("\r\u{1B}[K  \(phase), \(Int(rate)) calls/s now")
        lastCount = count
        lastTime = now
    }
    if showProgress { printProgress("\r\u{1B}[K") }
    for thread in threads { pthread_join(thread, nil) }
    return workers
}

/// Registers the pool of `register --pool N` before the clock starts: each hwid once, over the
/// same connections (connection i takes counters i, i + connections, …), then rewinds the
/// connections' counters so the measured run re-registers the same hwids unchanged.
func prefillPool(plan: RunPlan, pool: Int, connections: [BenchConnection], threadCount: Int) -> Bool {
    var prefill = plan
    prefill.start = monotonicNanos()
    prefill.measureStart = prefill.start
    prefill.end = nil
    prefill.rate = nil
    // Only the register calls, even in a mix, so the quotas cover the pool exactly.
    if let index = plan.kinds.firstIndex(where: { $0.template != nil && $0.pool > 0 }) { prefill.schedule = [UInt8(index)] }
    for (index, conn) in connections.enumerated() {
        conn.quota = pool / connections.count + (index < pool % connections.count ? 1 : 0)
        conn.sequence = 0
    }
    let began = monotonicNanos()
    let workers = runWorkers(plan: prefill, connections: connections, threadCount: threadCount, showProgress: isatty(2) == 1)
    var ok: UInt64 = 0
    var failed: UInt64 = 0
    for worker in workers {
        for (code, n) in worker.outcomes.enumerated() { if code == 0 { ok += n } else { failed += n } }
        if let failure = worker.failure { printError("pushwire-bench: pool: \(failure)") }
    }
    let seconds = Double(monotonicNanos() - began) / 1e9
    printError("pushwire-bench: registered a pool of \(pool) hwids in \(String(format: "%.2f", seconds)) s (\(ok) OK, \(failed) failed)")
    for conn in connections {
        conn.sequence = 0
        conn.scheduleIndex = 0
    }
    return failed == 0 && ok == UInt64(pool)
}
