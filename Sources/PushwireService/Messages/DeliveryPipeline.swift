import Foundation
import PushwireDelivery
import PushwireStore
import Synchronization

/// The durable delivery pipeline: a scheduler that picks due messages from the store's outbox and
/// a fan-out per message (see `FanOut`). Everything it needs to resume is in the store, so a
/// restarted server finishes what a crashed one started.
public final class DeliveryPipeline: Sendable {
    /// Tunables; the defaults suit a server, tests shorten the delays.
    public struct Configuration: Sendable {
        /// Devices per batch: read, rendered, recorded and handed to the gateway together.
        public var batchSize = 5000
        /// Attempts per device, the first included, for transient (`retry`) outcomes.
        public var maxAttempts = 4
        /// The first retry's delay; each later one doubles, with ±50 % jitter.
        public var retryBaseDelay: Duration = .seconds(1)
        /// The longest delay between attempts.
        public var retryMaxDelay: Duration = .seconds(60)
        /// Messages fanned out at once, small ones (below) not counted.
        public var maxConcurrentMessages = 4
        /// Small messages fanned out at once besides those: each waits for two group commits
        /// and does little else, so a stream of them (CreateMessage to a few devices, thousands a
        /// second) keeps up only when many share each commit. Memory per small message is a few
        /// KiB.
        public var maxConcurrentSmallMessages = 256
        /// A message is small when it names at most this many devices explicitly (and nothing
        /// else can widen it: explicit hwids are intersected with the other criteria).
        public var smallMessageDevices = 100
        /// The scheduler looks at the outbox at least this often even when nothing woke it.
        public var idlePoll: Duration = .seconds(1)

        /// The defaults.
        public init() {}
    }

    /// Chooses the gateway of an application (by its internal id).
    public typealias GatewayChooser = @Sendable (Int64) -> any NotificationGateway

    let store: any MessageStore
    let chooseGateway: GatewayChooser
    let configuration: Configuration

    private struct State {
        var running: Set<Int64> = []
        /// How many of `running` are small messages (the others count against `maxConcurrentMessages`).
        var runningSmall = 0
        var poked = false
        var waiter: CheckedContinuation<Void, Never>?
        var loop: Task<Void, Never>?
        var stopped = false
        /// When the sleeping scheduler wakes by itself, ms since 1970; nil while it works.
        var wakeAtMS: Int64?
    }
    private let state = Mutex(State())

    /// Creates a pipeline; call `start()` to run its scheduler.
    public init(store: any MessageStore, configuration: Configuration = Configuration(), gateway: @escaping GatewayChooser) {
        self.store = store
        self.configuration = configuration
        self.chooseGateway = gateway
    }

    /// Starts the scheduler: due messages (and any a crash left half sent) go out from now on.
    public func start() {
        state.withLock { state in
            guard state.loop == nil, !state.stopped else { return }
            state.loop = Task { [self] in await self.schedule() }
        }
    }

    /// Wakes the scheduler at once (a message was created).
    public func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                state.wakeAtMS = nil
                return waiter
            }
            state.poked = true
            return nil
        }
        waiter?.resume()
    }

    /// Tells the scheduler that messages were created, the earliest due at `earliestSendAtMS`.
    /// It is woken only when it would find something to start: not when every slot is busy (a
    /// finishing fan-out wakes it) nor when it wakes before that time anyway. Under a stream of
    /// CreateMessage calls this saves a scheduler pass (two queries and a timer) per call.
    public func messagesCreated(earliestSendAtMS: Int64) {
        let needed = state.withLock { state -> Bool in
            guard let wakeAt = state.wakeAtMS else { return true }  // working: `poked` makes it look again
            if earliestSendAtMS >= wakeAt { return false }
            if earliestSendAtMS <= Self.nowMS(), state.running.count >= configuration.totalSlots { return false }
            return true
        }
        if needed { wake() }
    }

    /// Stops the scheduler; fan-outs in progress stop after their current batch. What is left is
    /// resumed from the store by the next start.
    public func stop() async {
        requestStop()
        await state.withLock { $0.loop }?.value
    }

    /// Like `stop()`, without waiting.
    public func requestStop() {
        state.withLock { $0.stopped = true }
        wake()
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Sends every message that is due now and waits until they are done (retries included).
    /// For tests and tools that run without the scheduler.
    public func runDueMessages() async {
        while true {
            let due = (try? store.dueMessages(nowMS: Self.nowMS(), limit: 64)) ?? []
            if due.isEmpty { return }
            for message in due { await FanOut(pipeline: self, message: message).run() }
        }
    }

    /// How many due message ids one look at the outbox reads ahead.
    private static let readAhead = 256

    private func schedule() async {
        let slots = configuration.totalSlots
        // Due ids read ahead, oldest first, none running: a fan-out that ends starts the next
        // one from here without a query. Every look at the store is a read transaction, which
        // costs more than it seems while the writer commits hundreds of times a second (each
        // commit invalidates the reader's page cache). Messages created meanwhile are newer
        // than these, so taking these first keeps the oldest-first order.
        var pending: [Int64] = []
        var next = 0
        // Messages left sending (by a crash, or a fan-out that stopped on a store error) are
        // looked for at start and then once per `idlePoll`: the rest of the time those rows are
        // this scheduler's own running fan-outs, hundreds of them when small messages stream in,
        // and walking past them on every look cost more than the look itself.
        var sendingLookedAtMS: Int64?
        // Small scheduled messages claimed in this pass, sent together (`SmallMessagesFanOut`).
        var smallBatch: [MessageRecord] = []
        while !isStopped {
            if next == pending.count {
                let running = state.withLock { $0.running }
                let now = Self.nowMS()
                let includeSending = sendingLookedAtMS.map { now - $0 >= Int64(configuration.idlePoll / .milliseconds(1)) } ?? true
                if includeSending { sendingLookedAtMS = now }
                let ids = try? store.dueMessageIDs(nowMS: now, limit: Self.readAhead + slots, includeSending: includeSending)
                pending = (ids ?? []).filter { !running.contains($0) }
                next = 0
            }
            while next < pending.count {
                let id = pending[next]
                let claimed = state.withLock { state -> Bool? in
                    if state.running.count >= slots { return nil }
                    if state.running.contains(id) { return false }
                    state.running.insert(id)
                    return true
                }
                guard let claimed else { break }
                next += 1
                guard claimed else { continue }
                // Read after the claim; one cancelled (or finished) since its id was read is skipped.
                guard let message = try? store.message(id: id), message.status == .scheduled || message.status == .sending else {
                    state.withLock { _ = $0.running.remove(id) }
                    continue
                }
                let small = configuration.isSmall(message)
                let admitted = state.withLock { state -> Bool in
                    let large = state.running.count - 1 - state.runningSmall
                    if small ? state.runningSmall >= configuration.maxConcurrentSmallMessages
                             : large >= configuration.maxConcurrentMessages {
                        state.running.remove(id)
                        return false
                    }
                    if small { state.runningSmall += 1 }
                    return true
                }
                // Its kind's slots are all busy: wait for one to end (which wakes this loop), and
                // start nothing newer before it, to keep the oldest-first order.
                guard admitted else {
                    next -= 1
                    break
                }
                if small, message.status == .scheduled {
                    smallBatch.append(message)
                    if smallBatch.count >= SmallMessagesFanOut.maxMessages { startSmallBatch(&smallBatch) }
                    continue
                }
                startFanOut(FanOut(pipeline: self, message: message), small: small)
            }
            startSmallBatch(&smallBatch)
            // With ids left, every slot is busy and the next fan-out to end wakes this loop;
            // otherwise sleep until the next scheduled message.
            var delay = configuration.idlePoll
            if next == pending.count, let nextSendAt = try? store.nextScheduledSendTime() {
                delay = min(delay, .milliseconds(max(0, nextSendAt - Self.nowMS())))
            }
            await sleep(delay)
        }
        // Let running fan-outs reach the end of their batch.
        while state.withLock({ !$0.running.isEmpty }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Runs `fanOut` in a task of its own; its slot is given back when it ends.
    private func startFanOut(_ fanOut: FanOut, small: Bool) {
        Task { [self] in
            await fanOut.run()
            state.withLock { state in
                state.running.remove(fanOut.message.id)
                if small { state.runningSmall -= 1 }
            }
            wake()
        }
    }

    /// Sends the claimed small messages together in one task and empties `batch`; those that go
    /// on alone (retries) keep their slot until their own fan-out ends.
    private func startSmallBatch(_ batch: inout [MessageRecord]) {
        if batch.isEmpty { return }
        let messages = batch
        batch.removeAll()
        Task { [self] in
            let continuing = await SmallMessagesFanOut(pipeline: self, messages: messages).run()
            let kept = Set(continuing.map(\.message.id))
            state.withLock { state in
                for message in messages where !kept.contains(message.id) {
                    state.running.remove(message.id)
                    state.runningSmall -= 1
                }
            }
            for fanOut in continuing { startFanOut(fanOut, small: true) }
            wake()
        }
    }

    /// Sleeps for `delay` or until `wake()`, whichever comes first.
    private func sleep(_ delay: Duration) async {
        // Already woken (fan-outs end hundreds of times a second under a stream of small
        // messages): no timer task to start and cancel.
        let poked = state.withLock { state -> Bool in
            if state.poked || state.stopped {
                state.poked = false
                return true
            }
            return false
        }
        if poked { return }
        let timer = Task { [self] in
            try? await Task.sleep(for: delay)
            if !Task.isCancelled { wake() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.poked || state.stopped {
                    state.poked = false
                    return true
                }
                state.waiter = continuation
                state.wakeAtMS = Self.nowMS() + Int64(delay / .milliseconds(1))
                return false
            }
            if now { continuation.resume() }
        }
        state.withLock { $0.wakeAtMS = nil }
        timer.cancel()
    }

    /// Milliseconds since 1970.
    static func nowMS() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

extension DeliveryPipeline.Configuration {
    /// Every slot, large and small.
    var totalSlots: Int { maxConcurrentMessages + maxConcurrentSmallMessages }

    /// Whether `message` takes a small message's slot (see `smallMessageDevices`).
    func isSmall(_ message: MessageRecord) -> Bool {
        !message.targeting.hwids.isEmpty && message.targeting.hwids.count <= smallMessageDevices
    }
}
