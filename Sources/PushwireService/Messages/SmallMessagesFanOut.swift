import PushwireDelivery
import PushwireStore

/// Sends several small scheduled messages (a few explicit devices each) together: one read
/// transaction for all their targets, one writer job for all their attempt records, one gateway
/// batch per application, one writer job for all their outcomes. Sent one `FanOut` each, every
/// message cost two read transactions, two writer jobs, a gateway call and four task hops, so a
/// stream of CreateMessage calls to a few devices each outran the pipeline many times over.
///
/// The durability rules are `FanOut`'s: attempt records commit before the gateway sees them,
/// with the message's open range, so a crash closes them as `Interrupted`; a message cancelled
/// meanwhile writes nothing (its step hands over nothing). A message with transient outcomes
/// records them as retry-pending and continues in a `FanOut` of its own, which retries them
/// after a backoff; `finish` is then that fan-out's job.
struct SmallMessagesFanOut {
    /// The most messages one batch takes (several batches run at once, up to
    /// `maxConcurrentSmallMessages` messages in all).
    static let maxMessages = 64

    let pipeline: DeliveryPipeline
    /// Scheduled messages, each naming few enough devices to fit one batch.
    let messages: [MessageRecord]
    /// Called once the attempt records are committed (or nothing will be): the scheduler holds
    /// the next batch until then, so that it grows.
    var recordsCommitted: @Sendable () -> Void = {}

    /// One message of the batch as it goes through the steps. A class: the fan-out (its whole
    /// message record) and spec were copied, every field retained and released, at each of the
    /// four passes below, which cost more than the passes' own work.
    private final class Entry {
        let fanOut: FanOut
        let spec: MessageSpec
        var targets: [TargetDevice] = []
        var payloads: [[UInt8]] = []

        init(_ fanOut: FanOut, _ spec: MessageSpec) {
            self.fanOut = fanOut
            self.spec = spec
        }
    }

    /// Sends them; returns the messages that go on in a `FanOut` of their own (retries, or a
    /// spec this reader could not read), to be run by the caller.
    func run() async -> [FanOut] {
        let store = pipeline.store
        var sending: [Entry] = []
        var alone: [FanOut] = []
        // The specs CreateMessage built, for the messages it created here; the others' decoded.
        let handed = pipeline.takeCreatedSpecs(messages.map(\.id))
        for message in messages {
            if let spec = handed[message.id] ?? MessageSpecJSON.decode(message.spec) {
                sending.append(Entry(FanOut(pipeline: pipeline, message: message), spec))
            } else {
                alone.append(FanOut(pipeline: pipeline, message: message))  // it closes the message
            }
        }
        if sending.isEmpty { return alone }
        let limit = pipeline.configuration.batchSize
        guard let targets = try? await store.firstTargets(of: sending.map(\.fanOut.message), limit: limit) else { return alone }

        // A message with more targets than one batch (only when batchSize is tiny) goes alone,
        // from its start: nothing of it is written here.
        var steps: [FanOutStep] = []
        var batch: [Entry] = []
        for (entry, targets) in zip(sending, targets) {
            if targets.count >= limit {
                alone.append(entry.fanOut)
                continue
            }
            var renders = FanOut.Renders()
            let (badges, payloads, handOver) = entry.fanOut.render(targets, spec: entry.spec, cache: &renders)
            let message = entry.fanOut.message
            var tally = PlatformTally()
            for index in targets.indices { tally.targeted(targets[index].deviceType) }
            // No targets: the message is done in this one step.
            steps.append(FanOutStep(messageID: message.id, applicationID: message.applicationID, handOver: handOver,
                                    cursor: targets.last?.hwid, targetedIncrement: targets.count, badges: badges,
                                    finish: targets.isEmpty, startsSending: true, platformCounts: tally.take(), lease: pipeline.lease()))
            entry.targets = targets
            entry.payloads = payloads
            batch.append(entry)
        }
        if steps.isEmpty { return alone }
        // A failed commit wrote nothing: the messages are still scheduled and are picked again.
        let written = try? await store.recordFanOutSteps(steps)
        recordsCommitted()
        guard let committed = written, committed.count == steps.count else { return alone }
        pipeline.flowMetrics.entered(.sending, steps.count)
        pipeline.flowMetrics.entered(.done, steps.count(where: \.finish))
        pipeline.flowMetrics.fannedOut(steps.reduce(0) { $0 + $1.targetedIncrement })

        // One gateway call per application (each has its gateway), its messages' notifications
        // built straight into one array (per-message arrays joined afterwards copied every
        // notification, retaining its four buffers, once more).
        var byApplication: [Int64: (entries: [(index: Int, count: Int)], notifications: [OutgoingNotification])] = [:]
        // Room for every notification of the batch at once: reserving a little more per message
        // would reallocate and copy the growing array each time.
        let total = batch.reduce(0) { $0 + $1.targets.count }
        for (index, entry) in batch.enumerated() {
            let ids = committed[index]
            // Cancelled meanwhile (nothing handed over), or done with no targets.
            guard !entry.targets.isEmpty, ids.count == entry.targets.count else { continue }
            let applicationID = entry.fanOut.message.applicationID
            var group = byApplication.removeValue(forKey: applicationID) ?? ([], [])
            if group.notifications.isEmpty { group.notifications.reserveCapacity(total) }
            group.entries.append((index, ids.count))
            // By index: a copy of each target retained and released its three strings. The
            // entry's arrays are read once (an access to a class's stored `var` is checked
            // for exclusivity each time).
            let (targets, payloads) = (entry.targets, entry.payloads)
            for position in targets.indices {
                group.notifications.append(entry.fanOut.outgoing(ids[position], token: targets[position].pushToken,
                                                                 payload: payloads[position], spec: entry.spec,
                                                                 deviceType: targets[position].deviceType))
            }
            byApplication[applicationID] = group
        }
        var outcomes: [Int: ArraySlice<DeliveryOutcome>] = [:]
        func split(_ delivered: [DeliveryOutcome], _ entries: [(index: Int, count: Int)]) -> [(Int, ArraySlice<DeliveryOutcome>)] {
            var parts: [(Int, ArraySlice<DeliveryOutcome>)] = []
            parts.reserveCapacity(entries.count)
            var offset = 0
            for entry in entries {
                parts.append((entry.index, delivered[min(offset, delivered.count)..<min(offset + entry.count, delivered.count)]))
                offset += entry.count
            }
            return parts
        }
        if byApplication.count == 1, let (applicationID, group) = byApplication.first {
            // The common case: no task group (a child task per batch) for one gateway call.
            let delivered = await pipeline.chooseGateway(applicationID).deliver(group.notifications)
            for (index, part) in split(delivered, group.entries) { outcomes[index] = part }
        } else {
            await withTaskGroup(of: [(Int, ArraySlice<DeliveryOutcome>)].self) { tasks in
                for (applicationID, group) in byApplication {
                    let gateway = pipeline.chooseGateway(applicationID)
                    tasks.addTask { split(await gateway.deliver(group.notifications), group.entries) }
                }
                for await parts in tasks {
                    for (index, part) in parts { outcomes[index] = part }
                }
            }
        }

        var finishing: [FanOutStep] = []
        /// The entry of each step in `finishing`, for the delivery summaries.
        var finishingEntries: [Entry] = []
        var retrying: [FanOut] = []
        let maxAttempts = pipeline.configuration.maxAttempts
        for (index, entry) in batch.enumerated() {
            guard let delivered = outcomes[index] else { continue }
            let message = entry.fanOut.message
            let ids = committed[index]
            var results: [DeliveryResultRecord] = []
            results.reserveCapacity(ids.count)
            var tally = PlatformTally()
            var retryAfter: Duration?
            // By index: a copy of each target retained and released its three strings.
            let targets = entry.targets
            for position in targets.indices {
                // A gateway that answers short leaves the rest without an outcome: transient.
                let outcome = position < delivered.count ? delivered[delivered.startIndex + position] : .retry(reason: "NoOutcome", after: nil)
                let result: DeliveryResultRecord.Result
                switch outcome {
                case .sent:
                    result = .sent
                case .deadToken(let reason, let since):
                    result = FanOut.refused(.dead, reason: reason, since: since, token: targets[position].pushToken)
                case .invalidToken(let reason):
                    result = FanOut.refused(.invalid, reason: reason, since: nil, token: targets[position].pushToken)
                case .failed(let reason):
                    result = .failed(reason: reason, invalidToken: false, refusedToken: nil)
                case .retry(let reason, let after):
                    if maxAttempts <= 1 {
                        result = .failed(reason: reason, invalidToken: false, refusedToken: nil)
                    } else {
                        result = .retryPending(reason: reason)
                        let wait = max(after ?? .zero, FanOut.backoff(attempt: 1, pipeline.configuration))
                        retryAfter = max(retryAfter ?? .zero, wait)
                    }
                }
                results.append(DeliveryResultRecord(deliveryID: ids[position], hwid: targets[position].hwid, result: result))
                tally.recorded(targets[position].deviceType, result)
            }
            // With retries pending the message stays sending; its own fan-out resumes it.
            finishing.append(FanOutStep(messageID: message.id, applicationID: message.applicationID, results: results,
                                        finish: retryAfter == nil, platformCounts: tally.take(), lease: pipeline.lease()))
            finishingEntries.append(entry)
            if let retryAfter {
                var resumed = message
                resumed.status = .sending
                resumed.cursor = entry.targets.last?.hwid
                retrying.append(FanOut(pipeline: pipeline, message: resumed, resumedRetriesAfter: retryAfter))
            }
        }
        // A failed commit leaves them sending with their records open: closed as Interrupted
        // when the scheduler resumes them (it looks for messages left sending now and then).
        guard (try? await store.recordFanOutSteps(finishing)) != nil else { return alone }
        pipeline.flowMetrics.entered(.done, finishing.count(where: \.finish))
        if pipeline.log.enabled(.info) {
            // A small message goes out in this one step: its counts are this step's results.
            // By index: zipped and filtered, every step was copied (a dozen buffers retained).
            pipeline.logDelivered(finishing.indices.filter { finishing[$0].finish }.map { index in
                let (outcomes, entry) = (FanOutOutcomeCounts(finishing[index].results), finishingEntries[index])
                return DeliveryPipeline.DeliverySummary(code: entry.fanOut.message.code, targeted: UInt64(entry.targets.count),
                                                        sent: UInt64(outcomes.sent), failed: UInt64(outcomes.failed),
                                                        invalidTokens: UInt64(outcomes.invalidTokens))
            })
        }
        return alone + retrying
    }
}
