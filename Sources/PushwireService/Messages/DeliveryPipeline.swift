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
        /// How long a claim on a message lasts (`MessageLease`) without being renewed; the
        /// pipeline renews its leases every third of it. A server that dies holds its messages
        /// this long at most (plus one `idlePoll`) before another server takes them over.
        public var leaseDuration: Duration = .seconds(10)
        /// Devices per shared fan-out batch (`FanOutBatchRecord`): with a store whose batches
        /// every server shares (PostgreSQL), a message with more targets than this is cut into
        /// batches of this many, each claimed by whichever server has a free slot. 0: never cut.
        public var sharedBatchDevices = 20_000
        /// How often a scheduler with a free slot for a large message looks for batches to
        /// claim (cut by any server; its own cuts wake it at once).
        public var batchPoll: Duration = .milliseconds(100)
        /// Bytes the in-memory hand-over of created messages to the scheduler may hold: their
        /// records and small ones' decoded specs (`DeliveryPipeline+CacheBytes.swift`). Past it,
        /// created messages are found in the outbox instead. 0 keeps nothing in memory.
        public var maxCachedMessageBytes = DeliveryPipeline.defaultMaxCachedMessageBytes

        /// The defaults.
        public init() {}
    }

    /// Chooses the gateway of an application (by its internal id).
    public typealias GatewayChooser = @Sendable (Int64) -> any NotificationGateway

    let store: any MessageStore
    let chooseGateway: GatewayChooser
    let configuration: Configuration
    /// This pipeline's name on its message leases: unique per process, so that servers sharing
    /// a store tell their claims apart.
    public let leaseOwner: String
    /// `Configuration.leaseDuration` in milliseconds, converted once (a `Duration` divided by a
    /// `Duration` goes through `Double`, at every step's lease).
    private let leaseDurationMS: Int64

    /// What the scheduler, the renewer and the fan-outs share, under `state`'s lock.
    struct State {
        var running: Set<Int64> = []
        /// Batches of shared fan-outs claimed and running here (each counted in `runningLarge`).
        var runningBatches: Set<FanOutBatchID> = []
        /// A batch was cut here since the scheduler last looked for batches.
        var batchesCut = false
        /// When the scheduler last looked for batches to claim, ms since 1970.
        var batchesLookedAtMS: Int64?
        /// How many of `running` are started small messages, and started large ones (the rest
        /// of `running` is claimed, not started yet).
        var runningSmall = 0
        var runningLarge = 0
        var poked = false
        var waiter: CheckedContinuation<Void, Never>?
        var loop: Task<Void, Never>?
        var renewer: Task<Void, Never>?
        var stopped = false
        /// When the sleeping scheduler wakes by itself, ms since 1970; nil while it works.
        var wakeAtMS: Int64?
        /// Messages created due now, oldest first, not yet taken by the scheduler.
        var fresh: [CachedMessage] = []
        /// Some were not kept in `fresh` (it was full, or their ids were not given): the
        /// scheduler must look at the outbox.
        var freshOverflowed = false
        /// The earliest send time of a message scheduled for later, as far as known.
        var laterDueAtMS: Int64?
        /// The specs of small messages in `fresh`, by id, as CreateMessage built them: the
        /// small-message fan-out takes them instead of decoding the stored JSON again. Bounded
        /// like the scheduler's `known` (an entry whose message is never sent small is dropped
        /// with the rest when it overflows).
        var createdSpecs: [Int64: (spec: MessageSpec, cost: Int)] = [:]
        /// What `fresh`, `createdSpecs` and the scheduler's `known` hold, in bytes as
        /// `DeliveryPipeline.cachedCost(of:)` estimates them; together at most
        /// `Configuration.maxCachedMessageBytes`. `knownBytes` is the scheduler's to keep.
        var freshBytes = 0
        var createdSpecBytes = 0
        var knownBytes = 0
        /// Small-message batches started whose attempt records are not committed yet, by token.
        var startingSmallBatches: Set<Int> = []
        var nextSmallBatchToken = 0
    }
    let state = Mutex(State())

    /// Where the delivery summary of each message that is done goes (`info`).
    let log: OperatorLog
    /// Messages entering each status and devices fanned out, for /metrics.
    public let flowMetrics = MessageFlowMetrics()

    /// Messages created and waiting in memory for the scheduler, and messages being sent now
    /// (small ones in shared batches, large ones each on its own), for /metrics.
    public var queueFigures: (waiting: Int, runningSmall: Int, runningLarge: Int) {
        state.withLock { ($0.fresh.count, $0.runningSmall, $0.runningLarge) }
    }

    /// Creates a pipeline; call `start()` to run its scheduler.
    /// - Parameter log: gets one summary line per message once it is done.
    public init(store: any MessageStore, configuration: Configuration = Configuration(), log: OperatorLog = OperatorLog(),
                gateway: @escaping GatewayChooser) {
        self.store = store
        self.log = log
        self.configuration = configuration
        self.chooseGateway = gateway
        self.leaseOwner = DeliveryPipeline.makeLeaseOwner()
        self.leaseDurationMS = Int64(configuration.leaseDuration / .milliseconds(1))
    }

    /// A lease for this pipeline from now (`Configuration.leaseDuration`).
    func lease() -> MessageLease {
        MessageLease(owner: leaseOwner, nowMS: Self.nowMS(), durationMS: leaseDurationMS)
    }

    /// host, pid and 48 random bits: unique among the servers sharing a store, and readable in
    /// the `messages.lease_owner` column.
    static func makeLeaseOwner() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "host"
        let random = String(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF, radix: 16)
        return "\(host)-\(getpid())-\(random)"
    }

    /// A message that is done, as its summary line says: its code and delivery counts.
    struct DeliverySummary {
        var code: String
        var targeted: UInt64
        var sent: UInt64
        var failed: UInt64
        var invalidTokens: UInt64
    }

    /// Logs the summaries of messages that are done, at `info`, a line each, with one write.
    func logDelivered(_ summaries: [DeliverySummary]) {
        log.log(.info, "message delivered", lines: summaries.count) { index, line in
            line.add("message_code", summaries[index].code)
            line.add("targeted", summaries[index].targeted)
            line.add("sent", summaries[index].sent)
            line.add("failed", summaries[index].failed)
            line.add("invalid_tokens", summaries[index].invalidTokens)
        }
    }

    /// Starts the scheduler: due messages (and any a crash left half sent) go out from now on.
    public func start() {
        state.withLock { state in
            guard state.loop == nil, !state.stopped else { return }
            state.loop = Task(executorPreference: DeliveryExecutor.shared) { [self] in await self.schedule() }
            state.renewer = Task(executorPreference: DeliveryExecutor.shared) { [self] in await self.renewLeases() }
        }
    }

    /// Renews the leases of the running messages every third of `leaseDuration`, until stopped:
    /// steps renew theirs too, but a fan-out waiting for retries or a slow gateway takes none.
    /// A lease found lost is left to the fan-out, whose next step fails with `.leaseLost`.
    private func renewLeases() async {
        let period = configuration.leaseDuration / 3
        while !isStopped {
            try? await Task.sleep(for: period)
            let (running, batches) = state.withLock { (Array($0.running), Array($0.runningBatches)) }
            if isStopped { continue }
            if !running.isEmpty { _ = try? await store.renewLeases(lease(), messageIDs: running) }
            if !batches.isEmpty { _ = try? await store.renewBatchLeases(lease(), batches: batches) }
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
        let now = Self.nowMS()
        let needed = state.withLock { state -> Bool in
            // Without their ids, due messages are found by a look at the outbox.
            if earliestSendAtMS <= now {
                state.freshOverflowed = true
            } else {
                state.laterDueAtMS = min(state.laterDueAtMS ?? earliestSendAtMS, earliestSendAtMS)
            }
            return Self.wakeNeeded(&state, earliestSendAtMS: earliestSendAtMS, nowMS: now, slots: configuration.totalSlots)
        }
        if needed { wake() }
    }

    /// The most created message ids kept for the scheduler in memory; past that it looks at the outbox.
    static let freshCapacity = 4096

    /// Tells the scheduler about these newly created messages (as `createMessages` returned
    /// them): those due now are handed over by id, so that it starts them without looking for
    /// them in the outbox; it is woken as `messagesCreated(earliestSendAtMS:)` says.
    public func messagesCreated(_ created: [MessageRecord]) {
        messagesCreated(created, specs: [])
    }

    /// `messagesCreated(_:)` with the decoded spec of each (`specs[i]` is `created[i]`'s, or
    /// nil; fewer than `created` when some are not known), kept for the small-message fan-out.
    func messagesCreated(_ created: [MessageRecord], specs: [MessageSpec?]) {
        // The earliest send time without a list of them (an allocation per CreateMessage).
        guard var earliest = created.first?.sendAtMS else { return }
        for index in created.indices { earliest = min(earliest, created[index].sendAtMS) }
        let now = Self.nowMS()
        let budget = configuration.maxCachedMessageBytes
        var overflowed: [Int64] = []
        let needed = state.withLock { state -> Bool in
            for (index, message) in created.enumerated() where message.status == .scheduled {
                if message.sendAtMS > now {
                    state.laterDueAtMS = min(state.laterDueAtMS ?? message.sendAtMS, message.sendAtMS)
                } else if state.fresh.count < Self.freshCapacity,
                          case let cost = Self.cachedCost(of: message), state.cacheFits(cost, budget: budget) {
                    state.fresh.append(CachedMessage(record: message, cost: cost))
                    state.freshBytes += cost
                    if index < specs.count, let spec = specs[index], configuration.isSmall(message) {
                        if state.createdSpecs.count >= 2 * Self.freshCapacity {
                            state.createdSpecs.removeAll(keepingCapacity: true)
                            state.createdSpecBytes = 0
                        }
                        let specCost = Self.cachedSpecCost(of: message)
                        if state.cacheFits(specCost, budget: budget) {
                            state.createdSpecs[message.id] = (spec, specCost)
                            state.createdSpecBytes += specCost
                        }
                    }
                } else {
                    state.freshOverflowed = true
                    overflowed.append(message.id)
                }
            }
            return Self.wakeNeeded(&state, earliestSendAtMS: earliest, nowMS: now, slots: configuration.totalSlots)
        }
        if !overflowed.isEmpty {
            // Not kept in memory: the lease they were created under (`NewMessageRecord.lease`) is
            // given up, so that a look at the outbox takes them rather than passing over them
            // until it expires.
            let store = store, owner = leaseOwner
            Task(executorPreference: DeliveryExecutor.shared) { try? await store.releaseLeases(owner: owner, messageIDs: overflowed) }
        }
        if needed { wake() }
    }

    /// Takes the specs `messagesCreated(_:specs:)` kept for these messages (those it has).
    func takeCreatedSpecs(_ ids: [Int64]) -> [Int64: MessageSpec] {
        state.withLock { state in
            var taken: [Int64: MessageSpec] = [:]
            if state.createdSpecs.isEmpty { return taken }
            taken.reserveCapacity(ids.count)
            for id in ids {
                if let entry = state.createdSpecs.removeValue(forKey: id) {
                    taken[id] = entry.spec
                    state.createdSpecBytes -= entry.cost
                }
            }
            return taken
        }
    }

    private static func wakeNeeded(_ state: inout State, earliestSendAtMS: Int64, nowMS: Int64, slots: Int) -> Bool {
        // A small batch waiting for its commit wakes the scheduler when it commits, and the
        // scheduler would only hold a new small message until then: a pass (and a sleep's timer
        // task) per CreateMessage saved. Messages due now wait at most that one commit.
        if earliestSendAtMS <= nowMS, !state.startingSmallBatches.isEmpty { return false }
        guard let wakeAt = state.wakeAtMS else { return true }  // working: `poked` makes it look again
        if earliestSendAtMS >= wakeAt { return false }
        if earliestSendAtMS <= nowMS, state.running.count >= slots { return false }
        return true
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
            let due = (try? await store.dueMessages(nowMS: Self.nowMS(), limit: 64)) ?? []
            if due.isEmpty { return }
            for message in due { await FanOut(pipeline: self, message: message).run() }
        }
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
