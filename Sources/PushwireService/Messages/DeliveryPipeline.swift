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
        /// Messages fanned out at once.
        public var maxConcurrentMessages = 4
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
        var poked = false
        var waiter: CheckedContinuation<Void, Never>?
        var loop: Task<Void, Never>?
        var stopped = false
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
                return waiter
            }
            state.poked = true
            return nil
        }
        waiter?.resume()
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

    private func schedule() async {
        while !isStopped {
            // Ids only (the store reads them from its index): the messages running now come
            // first (they are sending), so twice the slots is enough to find the free ones, and
            // only the messages started are read and decoded.
            let slots = configuration.maxConcurrentMessages
            let due = (try? store.dueMessageIDs(nowMS: Self.nowMS(), limit: 2 * slots)) ?? []
            for id in due {
                let claimed = state.withLock { state -> Bool in
                    guard state.running.count < slots, !state.running.contains(id) else { return false }
                    state.running.insert(id)
                    return true
                }
                guard claimed else { continue }
                // Read after the claim: a fan-out that finished since the ids were read left it done.
                guard let message = try? store.message(id: id), message.status == .scheduled || message.status == .sending else {
                    state.withLock { _ = $0.running.remove(id) }
                    continue
                }
                Task { [self] in
                    await FanOut(pipeline: self, message: message).run()
                    state.withLock { _ = $0.running.remove(id) }
                    wake()
                }
            }
            var delay = configuration.idlePoll
            if let next = try? store.nextScheduledSendTime() {
                delay = min(delay, .milliseconds(max(0, next - Self.nowMS())))
            }
            await sleep(delay)
        }
        // Let running fan-outs reach the end of their batch.
        while state.withLock({ !$0.running.isEmpty }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Sleeps for `delay` or until `wake()`, whichever comes first.
    private func sleep(_ delay: Duration) async {
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
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }

    /// Milliseconds since 1970.
    static func nowMS() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
