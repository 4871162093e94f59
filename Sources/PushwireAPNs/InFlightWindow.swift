import Synchronization

/// A counting semaphore for async callers: `deliver` takes one slot per notification and suspends
/// while none is free; the HTTP/2 thread gives slots back as answers arrive. This is the gateway's
/// backpressure — nothing is queued beyond the window.
final class InFlightWindow: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
        var waiterHead = 0
        var inUse = 0
        var peakInUse = 0
    }

    private let state: Mutex<State>

    /// Creates a window of `size` slots.
    init(size: Int) { state = Mutex(State(available: size)) }

    /// The most slots ever taken at once.
    var peakInUse: Int { state.withLock { $0.peakInUse } }

    /// Takes a slot, suspending until one is free. Waiters are served first come, first served.
    func acquire() async {
        let acquired = state.withLock { state -> Bool in
            guard state.available > 0 else { return false }
            state.available -= 1
            state.inUse += 1
            state.peakInUse = max(state.peakInUse, state.inUse)
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                // A slot may have been released between the fast path and here.
                if state.available > 0 {
                    state.available -= 1
                    state.inUse += 1
                    state.peakInUse = max(state.peakInUse, state.inUse)
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives a slot back, handing it straight to the oldest waiter if there is one.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiterHead < state.waiters.count {
                let waiter = state.waiters[state.waiterHead]
                state.waiterHead += 1
                if state.waiterHead > 64 && state.waiterHead * 2 > state.waiters.count {
                    state.waiters.removeFirst(state.waiterHead)
                    state.waiterHead = 0
                }
                return waiter  // the slot passes to the waiter: inUse is unchanged
            }
            state.available += 1
            state.inUse -= 1
            return nil
        }
        next?.resume()
    }
}
