import PushwireStore

/// Shared fan-out batches (`FanOutBatchRecord`): the scheduler's side. A large message is cut
/// into batches by the server that claims it (`FanOut.cutIntoBatches`); from then on every
/// server whose large-message slots are not all busy claims batches under leases of their own
/// and fans each out like a message of its own, from its cursor to its end.
extension DeliveryPipeline {
    /// A fan-out here cut a message: the scheduler claims batches at once instead of at its
    /// next poll.
    func batchesCut() {
        state.withLock { $0.batchesCut = true }
        wake()
    }

    /// Claims batches for the free large-message slots and starts their fan-outs, when the store
    /// shares batches and the last look is `batchPoll` old (or a cut happened here since).
    /// - Returns: whether there was a free slot to look for (the scheduler then sleeps at most
    ///   `batchPoll`).
    func claimBatchesIfDue(idlePollMS: Int64) async -> Bool {
        guard store.sharesFanOutBatches, configuration.sharedBatchDevices > 0, !isStopped else { return false }
        let now = Self.nowMS()
        let pollMS = Int64(configuration.batchPoll / .milliseconds(1))
        let free = state.withLock { state -> Int? in
            let free = configuration.maxConcurrentMessages - state.runningLarge
            guard free > 0 else { return nil }
            guard state.batchesCut || now - (state.batchesLookedAtMS ?? 0) >= pollMS else { return 0 }
            state.batchesCut = false
            state.batchesLookedAtMS = now
            return free
        }
        guard let free else { return false }
        if free == 0 { return true }
        let claimed = (try? await store.claimFanOutBatches(lease(), limit: free)) ?? []
        if claimed.isEmpty { return true }
        let messages = (try? await store.messages(ids: Array(Set(claimed.map(\.id.messageID))))) ?? [:]
        var unstarted: [FanOutBatchID] = []
        for batch in claimed {
            guard let message = messages[batch.id.messageID], message.status == .sending else {
                unstarted.append(batch.id)
                continue
            }
            let admitted = state.withLock { state -> Bool? in
                // Running here already (a claim never returns those; kept as a guard): its lease
                // is its fan-out's, not to be released.
                if state.runningBatches.contains(batch.id) { return nil }
                guard state.runningLarge < configuration.maxConcurrentMessages else { return false }
                state.runningBatches.insert(batch.id)
                state.runningLarge += 1
                return true
            }
            guard let admitted else { continue }
            guard admitted else {
                unstarted.append(batch.id)
                continue
            }
            var fanOut = FanOut(pipeline: self, message: message)
            fanOut.batch = batch
            Task(executorPreference: DeliveryExecutor.shared) { [self] in
                await fanOut.run()
                state.withLock { state in
                    state.runningBatches.remove(batch.id)
                    state.runningLarge -= 1
                }
                wake()
            }
        }
        // Claimed but not started here (its message gone, or no slot after all): free at once.
        if !unstarted.isEmpty { _ = try? await store.releaseBatchLeases(owner: leaseOwner, batches: unstarted) }
        return true
    }
}
