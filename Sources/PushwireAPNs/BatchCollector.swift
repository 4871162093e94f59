import PushwireDelivery
import Synchronization

/// Gathers a batch's outcomes as they arrive (on the HTTP/2 threads) and hands them to the waiting
/// `deliver` once all are in. Answers come in groups (`complete` takes all that one connection's
/// loop round settled for this batch): one lock and one in-flight window release per group rather
/// than per notification.
final class BatchCollector: Sendable {
    private struct State {
        var outcomes: [DeliveryOutcome?]
        var remaining: Int
        var waiter: CheckedContinuation<[DeliveryOutcome], Never>?
    }

    private let state: Mutex<State>
    /// The window the batch's sent notifications hold slots of; each completion gives one back.
    private let window: InFlightWindow

    init(count: Int, window: InFlightWindow) {
        state = Mutex(State(outcomes: Array(repeating: nil, count: count), remaining: count))
        self.window = window
    }

    /// Records the outcome of a notification that was never sent (it holds no slot).
    func refuse(_ index: Int, _ outcome: DeliveryOutcome) {
        record(CollectionOfOne((index, outcome)), releasingSlots: false)
    }

    /// Records the outcomes of sent notifications of this batch (`entries` all name it) and gives
    /// their slots back; each index completes once, a repeated one is ignored.
    func complete(_ entries: some Collection<SettledJobs.Entry>) {
        record(entries.lazy.map { ($0.index, $0.outcome) }, releasingSlots: true)
    }

    private func record(_ entries: some Collection<(Int, DeliveryOutcome)>, releasingSlots: Bool) {
        let (recorded, finished) = state.withLock { state -> (Int, (CheckedContinuation<[DeliveryOutcome], Never>, [DeliveryOutcome])?) in
            var recorded = 0
            for (index, outcome) in entries where state.outcomes[index] == nil {
                state.outcomes[index] = outcome
                recorded += 1
            }
            state.remaining -= recorded
            guard recorded > 0, state.remaining == 0, let waiter = state.waiter else { return (recorded, nil) }
            state.waiter = nil
            return (recorded, (waiter, state.outcomes.map { $0 ?? .retry(reason: "no outcome", after: nil) }))
        }
        if releasingSlots && recorded > 0 { window.release(recorded) }
        if let (waiter, outcomes) = finished { waiter.resume(returning: outcomes) }
    }

    /// Waits for every outcome.
    func outcomes() async -> [DeliveryOutcome] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [DeliveryOutcome]? in
                if state.remaining == 0 { return state.outcomes.map { $0 ?? .retry(reason: "no outcome", after: nil) } }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
