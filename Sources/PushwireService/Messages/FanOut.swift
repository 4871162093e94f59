import Foundation
import PushwireDelivery
import PushwireStore

/// Sends one message to its targets: streams them from the store in hwid order (keyset
/// pagination, so memory stays flat however many match), renders each distinct (language, badge)
/// payload once, writes the batch's attempt records *before* handing it to the gateway, and
/// records the outcomes in a later batch's transaction (the gateway may hold two batches at once).
///
/// At most once per attempt record: a record that was handed over is never handed over again.
/// After a crash, records handed over without an outcome are closed as failures with reason
/// `Interrupted` (they may or may not have reached the device). Transient outcomes (`retry`) get a
/// new attempt record after an exponential, jittered backoff, up to `maxAttempts`.
struct FanOut {
    let pipeline: DeliveryPipeline
    let message: MessageRecord
    /// How long retries found open on start wait: none after a crash; a base backoff when a
    /// small-messages batch (`SmallMessagesFanOut`) hands over a message with transient outcomes.
    var resumedRetriesAfter: Duration = .zero
    /// The batch of the message this fan-out sends (claimed under its lease), or nil for the
    /// whole message. A batch reads its targets from its cursor to its end only, and its steps
    /// are fenced by the batch's lease (`FanOutStep.batch`).
    var batch: FanOutBatchRecord? = nil

    static let interruptedReason = "Interrupted"
    static let unregisteredReason = "Unregistered"

    private struct Retry {
        var replaces: UInt64
        var hwid: String
        var attempt: Int
        var reason: String
        var notBefore: ContinuousClock.Instant
        var deviceType: Int32
    }

    struct RenderKey: Hashable {
        var variant: String
        var badge: Int64?
        var service: PushService
    }

    /// Rendered payloads: the first few (language, badge) pairs in a short list compared without
    /// hashing (a message to a million devices in three languages looks up a million times and
    /// finds one of three), the rest by variant in a dictionary.
    struct Renders {
        var recent: [(language: String, badge: Int64?, service: PushService, payload: [UInt8])] = []
        var byKey: [RenderKey: [UInt8]] = [:]
    }

    func run() async {
        let store = pipeline.store
        guard let spec = MessageSpecJSON.decode(message.spec) else {
            // Unreadable spec (a newer binary wrote it?): close the message rather than loop on it.
            _ = try? await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: message.applicationID, finish: true,
                                                             startsSending: true, lease: pipeline.lease()))
            return
        }
        // A large message, with servers sharing the store, is cut into batches that every
        // server claims (`DeliveryPipeline+Batches`); this fan-out ends once they exist.
        if batch == nil, message.status == .scheduled, let cut = await cutIntoBatches() {
            if cut {
                pipeline.flowMetrics.entered(.sending)
                pipeline.batchesCut()
            }
            return
        }
        // A message left sending (a crash, another server that died, a small batch's retries)
        // is taken under this pipeline's lease first: its steps are written only under it, and
        // another server's live lease leaves the message to that server.
        if batch == nil, message.status == .sending {
            guard (try? await store.startSending(messageID: message.id, lease: pipeline.lease())) == true else { return }
        }
        // A scheduled message moves to sending in the transaction of its first batch (one write
        // fewer per message); that step writes nothing when the message was cancelled meanwhile.
        var startsSending = batch == nil && message.status == .scheduled
        let batchIndex = batch?.id.index
        let gateway = pipeline.chooseGateway(message.applicationID)
        let configuration = pipeline.configuration
        var renders = Renders()
        var pending: [DeliveryResultRecord] = []
        // `pending`'s outcomes (and the targets handed over) by platform.
        var tally = PlatformTally()
        var retries: [Retry] = []

        // Resume what a crash left open (a message that was only scheduled has nothing open).
        let open: [OpenDeliveryRecord]
        if let batch {
            guard let found = try? await store.openDeliveries(batch: batch.id) else { return }
            open = found
        } else {
            open = message.status == .scheduled ? [] : (try? await store.openDeliveries(messageID: message.id)) ?? []
        }
        for open in open {
            if open.handedOver {
                let result = DeliveryResultRecord.Result.failed(reason: FanOut.interruptedReason, invalidToken: false, refusedToken: nil)
                pending.append(DeliveryResultRecord(deliveryID: open.deliveryID, hwid: open.hwid, result: result))
                tally.recorded(open.deviceType, result)
            } else {
                retries.append(Retry(replaces: open.deliveryID, hwid: open.hwid, attempt: open.attempt + 1, reason: "",
                                     notBefore: .now + resumedRetriesAfter, deviceType: open.deviceType))
            }
        }

        // Batch k goes to the gateway as soon as its records commit, while batch k-1 may still be
        // there and batch k+1's records are written: the commit's fsync and the gateway's work
        // overlap instead of taking turns. Outcomes are recorded with the step after they are
        // known, so up to two batches are with the gateway (handed over without an outcome) at
        // once; the step says where the older one starts, and a crash closes both as
        // `Interrupted` (handed over, so never resent).
        let range = batch
        @Sendable func read(after cursor: String?) async -> [TargetDevice]? {
            guard let read = try? await store.targets(applicationID: message.applicationID, message.targeting, afterHWID: cursor,
                                                      limit: configuration.batchSize) else { return nil }
            // A batch's targets end at its bound (a short read is then its last).
            guard let range, let last = read.last, !range.includes(last.hwid) else { return read }
            return read.filter { range.includes($0.hwid) }
        }
        struct InGateway {
            /// The batch's attempt records, still with the gateway until its outcomes are recorded.
            var ids: [UInt64]
            var batch: [OutgoingNotification]
            var hwids: [String]
            var outcomes: Task<[DeliveryOutcome], Never>
        }
        var inGateway: InGateway?
        var readFailed = false
        guard var targets = await read(after: batch.map(\.resumeAfter) ?? message.cursor) else { return }
        if startsSending, targets.isEmpty {
            guard (try? await store.startSending(messageID: message.id, lease: pipeline.lease())) == true else { return }
            pipeline.flowMetrics.entered(.sending)
            startsSending = false
        }
        while !pipeline.isStopped, let last = targets.last {
            let (badges, payloads, handOver) = render(targets, spec: spec, cache: &renders)
            // By index, here and below: `for target in targets` copied each device (three strings
            // retained and released) to read a field or two (7 % of a 1 M-device fan-out).
            for index in targets.indices { tally.targeted(targets[index].deviceType) }
            let step = FanOutStep(messageID: message.id, applicationID: message.applicationID, results: pending,
                                  handOver: handOver, cursor: last.hwid, targetedIncrement: targets.count, badges: badges,
                                  stillWithGateway: inGateway?.ids ?? [], startsSending: startsSending, platformCounts: tally.take(), lease: pipeline.lease(),
                                  batch: batchIndex)
            let stepStartsSending = startsSending
            startsSending = false
            pending = []
            async let committed: [UInt64]? = try? await store.recordFanOutStep(step)
            // A short batch was the last one: no need to ask (most messages fit in one batch); so
            // is one that ends at its shared batch's last hwid (reading on would read a whole
            // batch of the next one's targets to keep none: a fifth of a 20,000-device batch's reads).
            let isLast = targets.count < configuration.batchSize || (range?.throughHWID.map { $0.utf8.elementsEqual(last.hwid.utf8) } ?? false)
            let lastHWID = last.hwid
            async let next: [TargetDevice]? = isLast ? [] : read(after: lastHWID)
            // A failed commit ends this run; what is open is closed as Interrupted on the next.
            guard let ids = await committed, ids.count == targets.count else { return }
            if stepStartsSending { pipeline.flowMetrics.entered(.sending) }
            pipeline.flowMetrics.fannedOut(targets.count)
            let following = await next
            var batch: [OutgoingNotification] = []
            batch.reserveCapacity(targets.count)
            var hwids: [String] = []
            hwids.reserveCapacity(targets.count)
            for index in targets.indices {
                batch.append(outgoing(ids[index], token: targets[index].pushToken, payload: payloads[index], spec: spec,
                                      deviceType: targets[index].deviceType))
                hwids.append(targets[index].hwid)
            }
            let handed = batch
            let delivering = Task(executorPreference: DeliveryExecutor.shared) { await gateway.deliver(handed) }
            if let previous = inGateway {
                record(await previous.outcomes.value, batch: previous.batch, hwids: previous.hwids, attempts: nil,
                       into: &pending, tally: &tally, retries: &retries)
            }
            inGateway = InGateway(ids: ids, batch: batch, hwids: hwids, outcomes: delivering)
            // A failed read ends this run after the batch in hand; the stored cursor resumes it.
            guard let following else {
                readFailed = true
                break
            }
            targets = following
        }
        if let last = inGateway {
            record(await last.outcomes.value, batch: last.batch, hwids: last.hwids, attempts: nil, into: &pending, tally: &tally,
                   retries: &retries)
        }
        if readFailed {
            _ = try? await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: message.applicationID, results: pending,
                                                             platformCounts: tally.take(), lease: pipeline.lease(), batch: batchIndex))
            return
        }

        while !retries.isEmpty, !pipeline.isStopped {
            retries.sort { $0.notBefore < $1.notBefore }
            if let first = retries.first, first.notBefore > .now {
                try? await Task.sleep(until: first.notBefore, clock: .continuous)
            }
            let now = ContinuousClock.now
            let dueCount = min(configuration.batchSize, retries.prefix { $0.notBefore <= now }.count)
            let due = Array(retries.prefix(dueCount))
            retries.removeFirst(dueCount)
            var handOver: [NewDeliveryRecord] = []
            var sending: [(Retry, TargetDevice)] = []
            for retry in due {
                // The device may have changed since: read its token again.
                if let target = try? await store.target(applicationID: message.applicationID, hwid: retry.hwid), !target.pushToken.isEmpty {
                    handOver.append(NewDeliveryRecord(hwid: retry.hwid, attempt: retry.attempt, replaces: retry.replaces))
                    sending.append((retry, target))
                } else {
                    let result = DeliveryResultRecord.Result.failed(reason: FanOut.unregisteredReason, invalidToken: false, refusedToken: nil)
                    pending.append(DeliveryResultRecord(deliveryID: retry.replaces, hwid: retry.hwid, result: result))
                    tally.recorded(retry.deviceType, result)
                }
            }
            let step = FanOutStep(messageID: message.id, applicationID: message.applicationID, results: pending, handOver: handOver,
                                  platformCounts: tally.take(), lease: pipeline.lease(), batch: batchIndex)
            guard let ids = try? await store.recordFanOutStep(step) else { return }
            pending = []
            if sending.isEmpty { continue }
            var batch: [OutgoingNotification] = []
            for (index, (_, target)) in sending.enumerated() {
                // The badge was stored with the first attempt; a retry shows the same value.
                let badge: Int64? = spec.badgeSet.map(Int64.init) ?? (spec.badgeIncrement != nil ? target.badge : nil)
                batch.append(outgoing(ids[index], token: target.pushToken,
                                      payload: payload(spec, language: target.language, badge: badge, deviceType: target.deviceType,
                                                       cache: &renders),
                                      spec: spec, deviceType: target.deviceType))
            }
            let outcomes = await gateway.deliver(batch)
            record(outcomes, batch: batch, hwids: sending.map(\.1.hwid), attempts: sending.map(\.0.attempt), into: &pending, tally: &tally,
                   retries: &retries)
        }
        if pipeline.isStopped {
            // Record what we know; the rest resumes on the next start.
            if !pending.isEmpty {
                _ = try? await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: message.applicationID, results: pending,
                                                                 platformCounts: tally.take(), lease: pipeline.lease(), batch: batchIndex))
            }
            return
        }
        guard (try? await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: message.applicationID,
                                                            results: pending, finish: true, platformCounts: tally.take(), lease: pipeline.lease(),
                                                            batch: batchIndex))) != nil else { return }
        // A batch that was not its message's last leaves the summary to the last one.
        if batch != nil, (try? await store.message(id: message.id))?.status != .done { return }
        pipeline.flowMetrics.entered(.done)
        // The counts of every run of this message (a resumed one had earlier runs): one read, at
        // the end of a message that took the long path, only when someone reads the line.
        if pipeline.log.enabled(.info), let stats = try? await store.statistics(messageID: message.id) {
            pipeline.logDelivered([DeliveryPipeline.DeliverySummary(code: message.code, targeted: stats.targeted, sent: stats.sent,
                                                                    failed: stats.failed, invalidTokens: stats.invalidTokens)])
        }
    }

    /// Cuts a scheduled large message into batches when the store shares them between servers
    /// and it has more targets than one batch holds.
    /// - Returns: nil to fan it out whole; else whether it was cut (false: cancelled meanwhile,
    ///   or another server holds it — nothing to do here).
    private func cutIntoBatches() async -> Bool? {
        let store = pipeline.store
        let every = pipeline.configuration.sharedBatchDevices
        guard store.sharesFanOutBatches, every > 0, !pipeline.configuration.isSmall(message) else { return nil }
        guard let bounds = try? await store.batchBounds(applicationID: message.applicationID, message.targeting, every: every),
              !bounds.isEmpty else { return nil }
        return (try? await store.cutFanOut(messageID: message.id, lease: pipeline.lease(), bounds: bounds)) ?? false
    }

    /// What a batch of targets turns into, in target order: the badges that change, each device's
    /// payload and its first-attempt delivery record.
    func render(_ targets: [TargetDevice], spec: MessageSpec, cache: inout Renders)
        -> (badges: [(hwid: String, badge: Int64)], payloads: [[UInt8]], handOver: [NewDeliveryRecord]) {
        var badges: [(hwid: String, badge: Int64)] = []
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(targets.count)
        var handOver: [NewDeliveryRecord] = []
        handOver.reserveCapacity(targets.count)
        for index in targets.indices {
            let deviceType = targets[index].deviceType
            // Badges are APNs': an Android device's stored badge is left alone.
            let badge = PushPlatform.service(deviceType: deviceType) == .fcm ? nil : spec.badge(after: targets[index].badge)
            if let badge { badges.append((targets[index].hwid, badge)) }
            payloads.append(payload(spec, language: targets[index].language, badge: badge, deviceType: deviceType, cache: &cache))
            handOver.append(NewDeliveryRecord(hwid: targets[index].hwid, attempt: 1))
        }
        return (badges, payloads, handOver)
    }

    /// The payload a device of `deviceType` in `language` gets: the APNs payload, or for
    /// Android the FCM message (`FCMPayloadRenderer`; badges are APNs' only).
    func payload(_ spec: MessageSpec, language: String, badge: Int64?, deviceType: Int32, cache: inout Renders) -> [UInt8] {
        let service: PushService = PushPlatform.service(deviceType: deviceType) == .fcm ? .fcm : .apns
        let badge = service == .fcm ? nil : badge
        for entry in cache.recent where entry.badge == badge && entry.service == service && entry.language == language { return entry.payload }
        let key = RenderKey(variant: spec.variant(language: language, buttons: service == .fcm), badge: badge, service: service)
        let rendered: [UInt8]
        if let cached = cache.byKey[key] {
            rendered = cached
        } else {
            // Badge increments can make many variants; keep the cache bounded.
            if cache.byKey.count >= 4096 { cache.byKey.removeAll(keepingCapacity: true) }
            if service == .fcm {
                rendered = FCMPayloadRenderer.render(spec, texts: spec.texts(language: language), language: language, messageCode: message.code)
            } else {
                rendered = PayloadRenderer.render(spec, texts: spec.texts(language: language), badge: badge, messageCode: message.code)
            }
            cache.byKey[key] = rendered
        }
        if cache.recent.count < 8 { cache.recent.append((language, badge, service, rendered)) }
        return rendered
    }

    func outgoing(_ id: UInt64, token: String, payload: [UInt8], spec: MessageSpec, deviceType: Int32) -> OutgoingNotification {
        OutgoingNotification(
            deliveryID: id, messageCode: message.code, deviceToken: token, payload: payload,
            priority: spec.priority,
            expiration: spec.ttl == 0 ? 0 : message.sendAtMS / 1000 + Int64(spec.ttl),
            collapseID: spec.collapseID, deviceType: deviceType, pushType: spec.isBackground ? "background" : "alert")
    }

    /// Turns the gateway's outcomes into results to record (with the next step) and retries.
    private func record(_ outcomes: [DeliveryOutcome], batch: [OutgoingNotification], hwids: [String], attempts: [Int]?,
                        into pending: inout [DeliveryResultRecord], tally: inout PlatformTally, retries: inout [Retry]) {
        let configuration = pipeline.configuration
        pending.reserveCapacity(pending.count + batch.count)
        // By index: each notification's five buffers were retained and released for the copy.
        for index in batch.indices {
            // A gateway that answers short leaves the rest without an outcome: treat as transient.
            let outcome = index < outcomes.count ? outcomes[index] : .retry(reason: "NoOutcome", after: nil)
            let attempt = attempts?[index] ?? 1
            let result: DeliveryResultRecord.Result
            switch outcome {
            case .sent:
                result = .sent
            case .deadToken(let reason, let since):
                result = FanOut.refused(.dead, reason: reason, since: since, token: batch[index].deviceToken)
            case .invalidToken(let reason):
                result = FanOut.refused(.invalid, reason: reason, since: nil, token: batch[index].deviceToken)
            case .failed(let reason):
                result = .failed(reason: reason, invalidToken: false, refusedToken: nil)
            case .retry(let reason, let after):
                if attempt >= configuration.maxAttempts {
                    result = .failed(reason: reason, invalidToken: false, refusedToken: nil)
                } else {
                    result = .retryPending(reason: reason)
                    retries.append(Retry(replaces: batch[index].deliveryID, hwid: hwids[index], attempt: attempt + 1, reason: reason,
                                         notBefore: .now + max(after ?? .zero, FanOut.backoff(attempt: attempt, configuration)),
                                         deviceType: batch[index].deviceType))
                }
            }
            pending.append(DeliveryResultRecord(deliveryID: batch[index].deliveryID, hwid: hwids[index], result: result))
            tally.recorded(batch[index].deviceType, result)
        }
    }

    /// base × 2^(attempt-1), capped, with ±50 % jitter so that retries of many devices spread out.
    static func backoff(attempt: Int, _ configuration: DeliveryPipeline.Configuration) -> Duration {
        let exponential = configuration.retryBaseDelay * (1 << min(max(attempt - 1, 0), 20))
        let capped = min(exponential, configuration.retryMaxDelay)
        return capped * Double.random(in: 0.5...1.5)
    }
}
