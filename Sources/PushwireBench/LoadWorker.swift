import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire
import Synchronization

/// What every worker needs to know about the run, fixed before the threads start.
struct RunPlan: Sendable {
    /// The kinds of call, indexed by `schedule`.
    var kinds: [PlannedKind]
    /// Kind indices in a repeating order that realises the mix's weights.
    var schedule: [UInt8]
    var concurrency: Int
    var start: UInt64
    var measureStart: UInt64
    /// When measurement ends under `--duration`; nil under `--requests`.
    var end: UInt64?
    var rate: Double?
    var connections: Int

    /// A call kind with its request bytes built once.
    struct PlannedKind: Sendable {
        var name: String
        var isPing: Bool
        /// The `Request` message (method, deadline, metadata, body) sent for every call of this kind.
        var request: [UInt8]
        /// When calls differ (a new hwid each): the template whose counter is patched per call;
        /// `request` is then unused.
        var template: PatchableRequest? = nil
        /// With a template: the counter is taken modulo `pool` (a fixed set of hwids); 0 = never.
        var pool: UInt64 = 0
    }
}

/// Counters read by the progress line while a run goes on.
final class LiveCounters: Sendable {
    /// Calls completed so far over all workers, warm-up included.
    let completed = Atomic<UInt64>(0)
    /// Workers whose `run` has returned.
    let finishedWorkers = Atomic<Int>(0)
}

/// Starts `worker.run()` on its own pthread; nil when the thread could not be created.
func startWorkerThread(_ worker: LoadWorker) -> pthread_t? {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(worker).toOpaque()
    guard pthread_create(&thread, nil, workerThreadMain, box) == 0 else {
        Unmanaged<LoadWorker>.fromOpaque(box).release()
        return nil
    }
    return thread
}

/// The entry point of a worker thread: takes over the reference `startWorkerThread` retained.
private func workerThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let worker = Unmanaged<LoadWorker>.fromOpaque(argument).takeRetainedValue()
    worker.run()
    worker.live.finishedWorkers.add(1, ordering: .releasing)
    return nil
}

/// One harness thread: drives several connections with poll(2), writes as many requests as each
/// window allows in one write(2), reads whatever arrived in one read(2), matches responses by
/// call id and records latencies in its own histograms.
///
/// `@unchecked Sendable` because it is handed to its pthread at start and read back by the main
/// thread only after `pthread_join`, which orders every access; no two threads touch it at once.
final class LoadWorker: @unchecked Sendable {
    let plan: RunPlan
    let connections: [BenchConnection]
    let live: LiveCounters
    var histograms: [LatencyHistogram]
    /// Index = status code 0…16; the local failures after them.
    var outcomes = [UInt64](repeating: 0, count: 17 + LocalFailure.allCases.count)
    var cpuSeconds = 0.0
    var lastCompletion: UInt64 = 0
    /// When `run` returned: the end of the duration, or earlier when every connection failed.
    var stoppedAt: UInt64 = 0
    var failure: String?
    /// The smallest `max_concurrent_calls` a server announced in its Settings; 0 when none did.
    var serverMaxConcurrentCalls: UInt32 = 0

    /// Outcomes that are not a status from the server.
    enum LocalFailure: Int, CaseIterable {
        case connectionClosed = 17, badPreface, malformedFrame, frameTooLarge, goAway

        var name: String {
            switch self {
            case .connectionClosed: "CONNECTION_CLOSED"
            case .badPreface: "BAD_PREFACE"
            case .malformedFrame: "MALFORMED_FRAME"
            case .frameTooLarge: "FRAME_TOO_LARGE"
            case .goAway: "GOAWAY_UNANSWERED"
            }
        }
    }

    init(plan: RunPlan, connections: [BenchConnection], live: LiveCounters) {
        self.plan = plan
        self.connections = connections
        self.live = live
        histograms = [LatencyHistogram](repeating: LatencyHistogram(), count: plan.kinds.count)
    }

    /// Writes new calls into `conn`'s output buffer while its window and schedule allow.
    @inline(__always)
    private func fill(_ conn: BenchConnection, now: UInt64) {
        let measuring = now >= plan.measureStart
        while conn.inFlight < plan.concurrency, !conn.draining {
            if measuring, conn.quota == 0 { return }
            var intended = now
            if plan.rate != nil {
                if conn.nextIntended > now { return }
                intended = conn.nextIntended
                conn.nextIntended &+= conn.interval
            }
            let kindIndex = plan.schedule[conn.scheduleIndex]
            conn.scheduleIndex += 1
            if conn.scheduleIndex == plan.schedule.count { conn.scheduleIndex = 0 }
            let index = conn.takeSlot()
            let measured = intended >= plan.measureStart
            if measured, conn.quota != Int.max { conn.quota -= 1 }
            conn.slots[index].measured = measured
            conn.slots[index].kind = kindIndex
            conn.slots[index].start = intended
            conn.inFlight += 1
            let kind = plan.kinds[Int(kindIndex)]
            if kind.isPing {
                HotFrames.appendPingFrame(payload: UInt64(conn.slots[index].callID), to: &conn.out)
            } else if let template = kind.template {
                var counter = UInt64(conn.index) &+ conn.sequence &* UInt64(plan.connections)
                conn.sequence &+= 1
                if kind.pool > 0 { counter %= kind.pool }
                template.appendFrame(callID: conn.slots[index].callID, counter: spreadKey(counter), to: &conn.out)
            } else {
                HotFrames.appendRequestFrame(callID: conn.slots[index].callID, request: kind.request, to: &conn.out)
            }
        }
    }

    @inline(__always)
    private func complete(_ conn: BenchConnection, callID: UInt32, outcome: Int, now: UInt64, completed: inout UInt64) {
        guard let slot = conn.finish(callID: callID) else { return }
        completed &+= 1  // for the progress line, warm-up included
        guard slot.measured else { return }
        if let end = plan.end, now > end { return }
        histograms[Int(slot.kind)].record(now > slot.start ? now - slot.start : 0)
        outcomes[outcome] &+= 1
        lastCompletion = now
    }

    /// Ends `conn` after a failure, counting its measured calls in flight under `failure`.
    private func fail(_ conn: BenchConnection, _ failure: LocalFailure) {
        guard !conn.closed else { return }
        conn.closed = true
        for i in conn.slots.indices where conn.slots[i].busy {
            conn.slots[i].busy = false
            if conn.slots[i].measured { outcomes[failure.rawValue] &+= 1 }
        }
        conn.inFlight = 0
    }

    private func handle(_ conn: BenchConnection, frame: UnsafeRawBufferPointer, now: UInt64, completed: inout UInt64) -> Bool {
        guard let event = HotFrames.scan(frame) else { return false }
        switch event {
        case .response(let callID, let code):
            complete(conn, callID: callID, outcome: Int(code > 16 ? 2 : code), now: now, completed: &completed)
        case .pong(let payload):
            complete(conn, callID: UInt32(truncatingIfNeeded: payload), outcome: 0, now: now, completed: &completed)
        case .goAway(let lastCallID, _):
            // Calls above lastCallID will never be answered: count them now, send nothing more.
            conn.draining = true
            for i in conn.slots.indices where conn.slots[i].busy && conn.slots[i].callID > lastCallID {
                if plan.kinds[Int(conn.slots[i].kind)].isPing { continue }
                conn.slots[i].busy = false
                conn.inFlight -= 1
                if conn.slots[i].measured { outcomes[LocalFailure.goAway.rawValue] &+= 1 }
            }
        case .ping(let payload):
            HotFrames.appendPongFrame(payload: payload, to: &conn.out)
        case .settings(let maxCalls):
            if maxCalls > 0, serverMaxConcurrentCalls == 0 || maxCalls < serverMaxConcurrentCalls {
                serverMaxConcurrentCalls = maxCalls
            }
        case .streamItem, .request, .other:
            break
        }
        return true
    }

    /// Runs until the duration ends, or until every connection has its quota answered.
    func run() {
        var fds = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var cpuAtMeasureStart: Double?
        let maxWait: UInt64 = 50_000_000
        while true {
            var now = monotonicNanos()
            if cpuAtMeasureStart == nil, now >= plan.measureStart { cpuAtMeasureStart = threadCPUSeconds() }
            if let end = plan.end, now >= end { break }
            var active = false
            var wait = maxWait
            for (i, conn) in connections.enumerated() {
                guard !conn.closed else {
                    fds[i].fd = -1
                    continue
                }
                fill(conn, now: now)
                if conn.wantsWrite, !conn.flush() { fail(conn, .connectionClosed) }
                if conn.closed { fds[i].fd = -1; continue }
                let done = (now >= plan.measureStart && conn.quota == 0) || conn.draining
                if conn.inFlight > 0 || !done { active = true }
                if plan.rate != nil, !done, conn.inFlight < plan.concurrency {
                    wait = min(wait, conn.nextIntended > now ? conn.nextIntended - now : 0)
                }
                fds[i].events = Int16(POLLIN) | (conn.wantsWrite ? Int16(POLLOUT) : 0)
            }
            if !active { break }
            if let end = plan.end { wait = min(wait, end > now ? end - now : 0) }
            // Wake at the start of measurement, so the CPU clock is read there.
            if now < plan.measureStart { wait = min(wait, plan.measureStart - now) }
            let ready: Int32
            do {
                ready = try Syscall.poll(&fds, nanoseconds: wait)
            } catch {
                failure = String(cString: strerror(error.errno))
                break
            }
            guard ready > 0 else { continue }
            now = monotonicNanos()
            var completed: UInt64 = 0
            for (i, conn) in connections.enumerated() where fds[i].fd >= 0 && fds[i].revents != 0 {
                let revents = fds[i].revents
                if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
                    let result = conn.readFrames { frame in handle(conn, frame: frame, now: now, completed: &completed) }
                    switch result {
                    case .ok: break
                    case .closed: fail(conn, .connectionClosed)
                    case .protocolError(let failure): fail(conn, failure)
                    }
                }
                if !conn.closed, revents & Int16(POLLOUT) != 0, !conn.flush() { fail(conn, .connectionClosed) }
            }
            if completed > 0 { live.completed.add(completed, ordering: .relaxed) }
        }
        cpuSeconds = threadCPUSeconds() - (cpuAtMeasureStart ?? threadCPUSeconds())
        stoppedAt = min(monotonicNanos(), plan.end ?? .max)
    }
}
