import Foundation
import PushwireDelivery
import PushwireStore

/// Sends one message to its targets: streams them from the store in hwid order (keyset
/// pagination, so memory stays flat however many match), renders each distinct (language, badge)
/// payload once, writes the batch's attempt records *before* handing it to the gateway, and
/// records the outcomes in the transaction that hands over the next batch.
///
/// At most once per attempt record: a record that was handed over is never handed over again.
/// After a crash, records handed over without an outcome are closed as failures with reason
/// `Interrupted` (they may or may not have reached the device). Transient outcomes (`retry`) get a
/// new attempt record after an exponential, jittered backoff, up to `maxAttempts`.
struct FanOut {
    let pipeline: DeliveryPipeline
    let message: MessageRecord

    static let interruptedReason = "Interrupted"
    static let unregisteredReason = "Unregistered"

    private struct Retry {
        var replaces: UInt64
        var hwid: String
        var attempt: Int
        var reason: String
        var notBefore: ContinuousClock.Instant
    }

    private struct RenderKey: Hashable {
        var variant: String
        var badge: Int64?
    }

    func run() async {
        let store = pipeline.store
        guard let spec = MessageSpecJSON.decode(message.spec) else {
            // Unreadable spec (a newer binary wrote it?): close the message rather than loop on it.
            _ = try? await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: message.applicationID, finish: true))
            return
        }
        if message.status == .scheduled {
            guard (try? await store.startSending(messageID: message.id)) == true else { return }
        }
        let gateway = pipeline.chooseGateway(message.applicationID)
        let configuration = pipeline.configuration
        var renders: [RenderKey: [UInt8]] = [:]
        var pending: [DeliveryResultRecord] = []
        var retries: [Retry] = []

        // Resume what a crash left open (a message that was only scheduled has nothing open).
        let open = message.status == .scheduled ? [] : (try? store.openDeliveries(messageID: message.id)) ?? []
        for open in open {
            if open.handedOver {
                pending.append(DeliveryResultRecord(deliveryID: open.deliveryID, hwid: open.hwid,
                                                    result: .failed(reason: FanOut.interruptedReason, invalidToken: false, deadToken: nil)))
            } else {
                retries.append(Retry(replaces: open.deliveryID, hwid: open.hwid, attempt: open.attempt + 1, reason: "",
                                     notBefore: .now))
            }
        }

        // The next batch is read while the current one's records commit: the read does not
        // depend on the write, and the commit's fsync is the slow part.
        func read(after cursor: String?) -> [TargetDevice]? {
            try? store.targets(applicationID: message.applicationID, message.targeting, afterHWID: cursor, limit: configuration.batchSize)
        }
        guard var targets = read(after: message.cursor) else { return }
        while !pipeline.isStopped, let last = targets.last {
            var badges: [(hwid: String, badge: Int64)] = []
            var payloads: [[UInt8]] = []
            payloads.reserveCapacity(targets.count)
            for target in targets {
                let badge = spec.badge(after: target.badge)
                if let badge { badges.append((target.hwid, badge)) }
                payloads.append(payload(spec, language: target.language, badge: badge, cache: &renders))
            }
            let step = FanOutStep(messageID: message.id, applicationID: message.applicationID, results: pending,
                                  handOver: targets.map { NewDeliveryRecord(hwid: $0.hwid, attempt: 1) },
                                  cursor: last.hwid, targetedIncrement: targets.count, badges: badges)
            async let committed: [UInt64]? = try? await store.recordFanOutStep(step)
            // A short batch was the last one: no need to ask (most messages fit in one batch).
            let following = targets.count < configuration.batchSize ? [] : read(after: last.hwid)
            guard let ids = await committed, ids.count == targets.count else { return }
            pending = []
            var batch: [OutgoingNotification] = []
            batch.reserveCapacity(targets.count)
            for (index, target) in targets.enumerated() {
                batch.append(outgoing(ids[index], token: target.pushToken, payload: payloads[index], spec: spec))
            }
            let outcomes = await gateway.deliver(batch)
            record(outcomes, batch: batch, hwids: targets.map(\.hwid), attempts: nil, into: &pending, retries: &retries)
            // A failed read ends this run; the stored cursor resumes it next time.
            guard let following else { return }
            targets = following
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
                if let target = try? store.target(applicationID: message.applicationID, hwid: retry.hwid), !target.pushToken.isEmpty {
                    handOver.append(NewDeliveryRecord(hwid: retry.hwid, attempt: retry.attempt, replaces: retry.replaces))
                    sending.append((retry, target))
                } else {
                    pending.append(DeliveryResultRecord(deliveryID: retry.replaces, hwid: retry.hwid,
                                                        result: .failed(reason: FanOut.unregisteredReason, invalidToken: false, deadToken: nil)))
                }
            }
            let step = FanOutStep(messageID: message.id, applicationID: message.applicationID, results: pending, handOver: handOver)
            guard let ids = try? await store.recordFanOutStep(step) else { return }
            pending = []
            if sending.isEmpty { continue }
            var batch: [OutgoingNotification] = []
            for (index, (_, target)) in sending.enumerated() {
                // The badge was stored with the first attempt; a retry shows the same value.
                let badge: Int64? = spec.badgeSet.map(Int64.init) ?? (spec.badgeIncrement != nil ? target.badge : nil)
                batch.append(outgoing(ids[index], token: target.pushToken,
                                      payload: payload(spec, language: target.language, badge: badge, cache: &renders), spec: spec))
            }
            let outcomes = await gateway.deliver(batch)
            record(outcomes, batch: batch, hwids: sending.map(\.1.hwid), attempts: sending.map(\.0.attempt), into: &pending, retries: &retries)
        }
        if pipeline.isStopped {
            // Record what we know; the rest resumes on the next start.
            if !pending.isEmpty {
                _ = try? await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: message.applicationID, results: pending))
            }
            return
        }
        _ = try? await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: message.applicationID,
                                                         results: pending, finish: true))
    }

    private func payload(_ spec: MessageSpec, language: String, badge: Int64?, cache: inout [RenderKey: [UInt8]]) -> [UInt8] {
        let key = RenderKey(variant: spec.variant(language: language), badge: badge)
        if let rendered = cache[key] { return rendered }
        // Badge increments can make many variants; keep the cache bounded.
        if cache.count >= 4096 { cache.removeAll(keepingCapacity: true) }
        let rendered = PayloadRenderer.render(spec, texts: spec.texts(language: language), badge: badge, messageCode: message.code)
        cache[key] = rendered
        return rendered
    }

    private func outgoing(_ id: UInt64, token: String, payload: [UInt8], spec: MessageSpec) -> OutgoingNotification {
        OutgoingNotification(
            deliveryID: id, messageCode: message.code, deviceToken: token, payload: payload,
            priority: spec.interruptionLevel == "passive" ? 5 : 10,
            expiration: spec.ttl == 0 ? 0 : message.sendAtMS / 1000 + Int64(spec.ttl),
            collapseID: spec.collapseID)
    }

    /// Turns the gateway's outcomes into results to record (with the next step) and retries.
    private func record(_ outcomes: [DeliveryOutcome], batch: [OutgoingNotification], hwids: [String], attempts: [Int]?,
                        into pending: inout [DeliveryResultRecord], retries: inout [Retry]) {
        let configuration = pipeline.configuration
        for (index, notification) in batch.enumerated() {
            // A gateway that answers short leaves the rest without an outcome: treat as transient.
            let outcome = index < outcomes.count ? outcomes[index] : .retry(reason: "NoOutcome", after: nil)
            let attempt = attempts?[index] ?? 1
            let result: DeliveryResultRecord.Result
            switch outcome {
            case .sent:
                result = .sent
            case .deadToken(let reason, _):
                result = .failed(reason: reason, invalidToken: true, deadToken: notification.deviceToken)
            case .invalidToken(let reason):
                result = .failed(reason: reason, invalidToken: true, deadToken: notification.deviceToken)
            case .failed(let reason):
                result = .failed(reason: reason, invalidToken: false, deadToken: nil)
            case .retry(let reason, let after):
                if attempt >= configuration.maxAttempts {
                    result = .failed(reason: reason, invalidToken: false, deadToken: nil)
                } else {
                    result = .retryPending(reason: reason)
                    retries.append(Retry(replaces: notification.deliveryID, hwid: hwids[index], attempt: attempt + 1, reason: reason,
                                         notBefore: .now + max(after ?? .zero, FanOut.backoff(attempt: attempt, configuration))))
                }
            }
            pending.append(DeliveryResultRecord(deliveryID: notification.deliveryID, hwid: hwids[index], result: result))
        }
    }

    /// base × 2^(attempt-1), capped, with ±50 % jitter so that retries of many devices spread out.
    static func backoff(attempt: Int, _ configuration: DeliveryPipeline.Configuration) -> Duration {
        let exponential = configuration.retryBaseDelay * (1 << min(max(attempt - 1, 0), 20))
        let capped = min(exponential, configuration.retryMaxDelay)
        return capped * Double.random(in: 0.5...1.5)
    }
}
