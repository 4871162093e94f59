import PushwireDelivery
import Synchronization

/// Gathers a batch's outcomes as they arrive (on the HTTP/2 thread) and hands them to the waiting
/// `deliver` once all are in.
final class BatchCollector: Sendable {
    private struct State {
        var outcomes: [DeliveryOutcome?]
        var remaining: Int
        var waiter: CheckedContinuation<[DeliveryOutcome], Never>?
    }

    private let state: Mutex<State>

    init(count: Int) { state = Mutex(State(outcomes: Array(repeating: nil, count: count), remaining: count)) }

    /// Records the outcome of the notification at `index`; each index completes once.
    func complete(_ index: Int, _ outcome: DeliveryOutcome) {
        let finished = state.withLock { state -> (CheckedContinuation<[DeliveryOutcome], Never>, [DeliveryOutcome])? in
            guard state.outcomes[index] == nil else { return nil }
            state.outcomes[index] = outcome
            state.remaining -= 1
            guard state.remaining == 0, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.outcomes.map { $0 ?? .retry(reason: "no outcome", after: nil) })
        }
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
