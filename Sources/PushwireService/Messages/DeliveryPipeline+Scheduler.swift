import Foundation
import PushwireStore

/// The pipeline's scheduler: the loop that claims due messages from the outbox (and those handed
/// over in memory), admits them to their kind's slots and starts their fan-outs.
extension DeliveryPipeline {
    /// How many due message ids one look at the outbox reads ahead.
    private static let readAhead = 256

    func schedule() async {
        let slots = configuration.totalSlots
        let idlePollMS = Int64(configuration.idlePoll / .milliseconds(1))
        // Due ids, oldest first, none running: a fan-out that ends starts the next one from here
        // without a query. They come from two places. Messages created by this process and due
        // at once are handed over in memory (`messagesCreated(_:)`); the outbox (the messages
        // table) is looked at only when that cannot be enough: at start, once per `idlePoll`,
        // when a message scheduled for later comes due, when the in-memory list overflowed, and
        // while the last look left more behind. Every look at the store is a read transaction
        // that walks past the messages already running (hundreds, when small messages stream
        // in), and looking on every wake-up cost more than sending the messages.
        var pending: [Int64] = []
        var next = 0
        var lookedAtMS: Int64?
        var moreInOutbox = false
        // Messages left sending (by a crash, or a fan-out that stopped on a store error) are
        // looked for at start and then once per `idlePoll`: the rest of the time those rows are
        // this scheduler's own running fan-outs.
        var sendingLookedAtMS: Int64?
        // Small scheduled messages claimed in this pass, sent together (`SmallMessagesFanOut`).
        var smallBatch: [MessageRecord] = []
        // The records of messages handed over in memory, by id, until claimed: they are as
        // created (scheduled), so they need no read. One cancelled meanwhile is caught by the
        // first step's write, which checks the status and hands nothing over.
        var known: [Int64: CachedMessage] = [:]
        // The change of `known`'s bytes not yet applied to `State.knownBytes` (entries dropped
        // or claimed make it negative), settled once per pass rather than under the lock per entry.
        var knownChange = 0
        while !isStopped {
            let now = Self.nowMS()
            let (fresh, overflowed, laterDueAtMS) = state.withLock { state in
                // Moved out, not copied: a copy left the state's array shared, and emptying it
                // then allocated a new buffer of its whole capacity on every pass.
                var taken: [CachedMessage] = []
                swap(&taken, &state.fresh)
                defer {
                    state.freshOverflowed = false
                    // Handed to `known` below: the bytes move with them, under the same lock, so
                    // that no creation sees the budget emptier than it is.
                    state.knownBytes += state.freshBytes
                    state.freshBytes = 0
                }
                return (taken, state.freshOverflowed, state.laterDueAtMS)
            }
            let look = next == pending.count
                && (lookedAtMS.map { now - $0 >= idlePollMS } ?? true || moreInOutbox || overflowed
                    || laterDueAtMS.map { $0 <= now } ?? false)
            if look {
                lookedAtMS = now
                let running = state.withLock { state in
                    // Creations from here on lower it again; the look below finds the rest.
                    state.laterDueAtMS = nil
                    return state.running
                }
                let includeSending = sendingLookedAtMS.map { now - $0 >= idlePollMS } ?? true
                if includeSending { sendingLookedAtMS = now }
                // Claimed, not only read: with several servers on one store, each message is
                // taken by one of them (a lease; those found running here are renewed).
                let ids = (try? await store.claimDueMessages(lease(), limit: Self.readAhead + slots, includeSending: includeSending)) ?? []
                moreInOutbox = ids.count >= Self.readAhead + slots
                pending = ids.filter { !running.contains($0) }
                // The fresh ones were created under this server's lease, which its looks pass
                // over (`NewMessageRecord.lease`): they follow what the look found.
                let found = Set(pending)
                pending += fresh.lazy.map(\.record.id).filter { !found.contains($0) && !running.contains($0) }
                next = 0
                let later = try? await store.nextScheduledSendTime(after: now)
                state.withLock { state in
                    if let later { state.laterDueAtMS = min(state.laterDueAtMS ?? later, later) }
                }
            } else if !fresh.isEmpty {
                if next == pending.count {
                    pending = fresh.map(\.record.id)
                    next = 0
                } else {
                    pending.append(contentsOf: fresh.map(\.record.id))
                }
            }
            if !fresh.isEmpty {
                // Bounded: entries not claimed (their ids dropped by a look at the outbox, which
                // finds them again) are forgotten rather than kept forever.
                if known.count > 2 * Self.freshCapacity {
                    knownChange -= known.values.reduce(0) { $0 + $1.cost }
                    known.removeAll(keepingCapacity: true)
                }
                for entry in fresh {
                    if let replaced = known.updateValue(entry, forKey: entry.record.id) { knownChange -= replaced.cost }
                }
            }
            // Claim as many as there are free slots, then read them in one read transaction
            // (one each cost a transaction while the writer commits hundreds of times a second).
            var claimed: [(index: Int, id: Int64)] = []
            while next < pending.count {
                let id = pending[next]
                let outcome = state.withLock { state -> Bool? in
                    if state.running.count >= slots { return nil }
                    if state.running.contains(id) { return false }
                    state.running.insert(id)
                    return true
                }
                guard let outcome else { break }
                if outcome { claimed.append((next, id)) }
                next += 1
            }
            // Read after the claim (those not known in memory); one cancelled (or finished) since
            // its id was read is skipped.
            var read: [Int64: MessageRecord] = [:]
            var unknown: [Int64] = []
            for entry in claimed {
                if let cached = known.removeValue(forKey: entry.id) {
                    read[entry.id] = cached.record
                    knownChange -= cached.cost
                } else {
                    unknown.append(entry.id)
                }
            }
            settleKnownBytes(&knownChange)
            if !unknown.isEmpty {
                for (id, message) in (try? await store.messages(ids: unknown)) ?? [:] { read[id] = message }
            }
            for (position, entry) in claimed.enumerated() {
                // Moved out of `read` (a copy retained each of the record's strings and arrays).
                guard let message = read.removeValue(forKey: entry.id), message.status == .scheduled || message.status == .sending else {
                    state.withLock { _ = $0.running.remove(entry.id) }
                    continue
                }
                let small = configuration.isSmall(message)
                let admitted = state.withLock { state -> Bool in
                    if small ? state.runningSmall >= configuration.maxConcurrentSmallMessages
                             : state.runningLarge >= configuration.maxConcurrentMessages {
                        return false
                    }
                    if small { state.runningSmall += 1 } else { state.runningLarge += 1 }
                    return true
                }
                // Its kind's slots are all busy: wait for one to end (which wakes this loop), and
                // start nothing newer before it, to keep the oldest-first order. It and the ones
                // claimed after it are claimed again then.
                guard admitted else {
                    read[entry.id] = message
                    state.withLock { state in
                        for later in claimed[position...] { state.running.remove(later.id) }
                    }
                    // Kept for when they are claimed again (only this loop starts messages).
                    // Within the budget: one past it is read from the store again.
                    for later in claimed[position...] {
                        guard let message = read[later.id], message.status == .scheduled else { continue }
                        let cost = Self.cachedCost(of: message)
                        let kept = state.withLock { state -> Bool in
                            guard state.cacheFits(cost, budget: configuration.maxCachedMessageBytes) else { return false }
                            state.knownBytes += cost
                            return true
                        }
                        if kept { known[later.id] = CachedMessage(record: message, cost: cost) }
                    }
                    next = entry.index
                    break
                }
                if small, message.status == .scheduled {
                    smallBatch.append(message)
                    if smallBatch.count >= SmallMessagesFanOut.maxMessages { startSmallBatch(&smallBatch) }
                    continue
                }
                startFanOut(FanOut(pipeline: self, message: message), small: small)
            }
            // Started only when no other batch is still waiting for its first commit (or when
            // full): the messages created meanwhile join it, as calls join a group commit. Started
            // on every pass, batches averaged ~10 messages under a stream of CreateMessage calls
            // (one per wake-up), and each batch costs a read transaction, two writer jobs and a
            // gateway write whatever its size. The held ones wait at most for that commit, which
            // wakes this loop.
            if state.withLock({ $0.startingSmallBatches.isEmpty }) { startSmallBatch(&smallBatch) }
            // Batches of shared fan-outs (cut here or by another server) take free large slots.
            let batchesLookedFor = await claimBatchesIfDue(idlePollMS: idlePollMS)
            if next == pending.count {
                pending.removeAll(keepingCapacity: true)
                next = 0
            }
            // With ids left, every slot is busy and the next fan-out to end wakes this loop;
            // otherwise sleep until the next look is due (a creation wakes it sooner).
            var delay = configuration.idlePoll
            if next == pending.count {
                if moreInOutbox { delay = .zero }
                if let later = state.withLock({ $0.laterDueAtMS }) {
                    delay = min(delay, .milliseconds(max(0, later - Self.nowMS())))
                }
            }
            if batchesLookedFor { delay = min(delay, configuration.batchPoll) }
            if delay > .zero { await sleep(delay) }
        }
        // `known` goes with this loop.
        state.withLock { $0.knownBytes = 0 }
        // Claimed small messages never started: not running (the next start finds them scheduled).
        if !smallBatch.isEmpty {
            state.withLock { state in
                for message in smallBatch {
                    state.running.remove(message.id)
                    state.runningSmall -= 1
                }
            }
        }
        // Let running fan-outs reach the end of their batch, then give their leases up, so that
        // another server continues them at once rather than after the lease expires.
        let (held, heldBatches) = state.withLock { (Array($0.running), Array($0.runningBatches)) }
        while state.withLock({ !$0.running.isEmpty || !$0.runningBatches.isEmpty }) { try? await Task.sleep(for: .milliseconds(5)) }
        if !held.isEmpty { _ = try? await store.releaseLeases(owner: leaseOwner, messageIDs: held) }
        if !heldBatches.isEmpty { _ = try? await store.releaseBatchLeases(owner: leaseOwner, batches: heldBatches) }
        state.withLock { $0.renewer }?.cancel()
    }

    /// Applies the change of `known`'s bytes since the last call to `State.knownBytes`.
    private func settleKnownBytes(_ change: inout Int) {
        if change == 0 { return }
        let settled = change
        state.withLock { $0.knownBytes += settled }
        change = 0
    }

    /// Runs `fanOut` in a task of its own; its slot is given back when it ends.
    private func startFanOut(_ fanOut: FanOut, small: Bool) {
        Task(executorPreference: DeliveryExecutor.shared) { [self] in
            await fanOut.run()
            state.withLock { state in
                state.running.remove(fanOut.message.id)
                if small { state.runningSmall -= 1 } else { state.runningLarge -= 1 }
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
        let token = state.withLock { state in
            state.nextSmallBatchToken &+= 1
            state.startingSmallBatches.insert(state.nextSmallBatchToken)
            return state.nextSmallBatchToken
        }
        Task(executorPreference: DeliveryExecutor.shared) { [self] in
            let continuing = await SmallMessagesFanOut(pipeline: self, messages: messages) { [self] in
                smallBatchStarted(token)
            }.run()
            smallBatchStarted(token)  // a no-op when it said so already
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

    /// A small-message batch committed its attempt records (or ended before): the batch held
    /// meanwhile may start. Called once or twice per token; only the first wakes the scheduler.
    private func smallBatchStarted(_ token: Int) {
        if state.withLock({ $0.startingSmallBatches.remove(token) }) != nil { wake() }
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

}
