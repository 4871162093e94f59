import Synchronization

/// A counting semaphore for async callers: `deliver` takes slots for the notifications it hands
/// over and suspends while none is free; the HTTP/2 thread gives slots back as answers arrive.
/// This is the gateway's backpressure — nothing is queued beyond the window.
///
/// A waiter is woken once a batch of slots (an eighth of the window, or all it asked for) is
/// free rather than on every released slot: each wake-up is a task resumption and a hop to the
/// HTTP/2 thread, which at tens of thousands of notifications per second costs more than the
/// requests themselves.
final class InFlightWindow: Sendable {
    private struct Waiter {
        var wanted: Int
        var continuation: CheckedContinuation<Int, Never>
    }

    private struct State {
        var available: Int
        var waiters: [Waiter] = []
        var waiterHead = 0
        var peakInUse = 0

        mutating func take(_ count: Int, size: Int) -> Int {
            available -= count
            peakInUse = max(peakInUse, size - available)
            return count
        }
    }

    private let size: Int
    private let wakeBatch: Int
    private let state: Mutex<State>

    /// Creates a window of `size` slots.
    init(size: Int) {
        self.size = max(1, size)
        wakeBatch = max(1, self.size / 8)
        state = Mutex(State(available: self.size))
    }

    /// The most slots ever taken at once.
    var peakInUse: Int { state.withLock { $0.peakInUse } }

    /// How many callers are suspended waiting for slots now.
    var waiting: Int { state.withLock { $0.waiters.count - $0.waiterHead } }

    /// Takes between 1 and `wanted` slots, suspending until at least one is free; returns how many
    /// were taken. Waiters are served first come, first served.
    func acquire(atMost wanted: Int) async -> Int {
        let wanted = max(1, wanted)
        let size = self.size
        let granted = state.withLock { state -> Int in
            guard state.available > 0, state.waiterHead == state.waiters.count else { return 0 }
            return state.take(min(wanted, state.available), size: size)
        }
        if granted > 0 { return granted }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let granted = state.withLock { state -> Int in
                // Slots may have been released between the fast path and here.
                if state.available > 0, state.waiterHead == state.waiters.count {
                    return state.take(min(wanted, state.available), size: size)
                }
                state.waiters.append(Waiter(wanted: wanted, continuation: continuation))
                return 0
            }
            if granted > 0 { continuation.resume(returning: granted) }
        }
    }

    /// Gives `count` slots back, waking the oldest waiter once enough are free for it.
    func release(_ count: Int = 1) {
        let size = self.size
        let wakeBatch = self.wakeBatch
        let woken = state.withLock { state -> (CheckedContinuation<Int, Never>, Int)? in
            state.available += count
            guard state.waiterHead < state.waiters.count else { return nil }
            let waiter = state.waiters[state.waiterHead]
            guard state.available >= min(waiter.wanted, wakeBatch) else { return nil }
            state.waiterHead += 1
            if state.waiterHead == state.waiters.count {
                state.waiters.removeAll(keepingCapacity: true)
                state.waiterHead = 0
            }
            return (waiter.continuation, state.take(min(waiter.wanted, state.available), size: size))
        }
        if let (continuation, granted) = woken { continuation.resume(returning: granted) }
    }
}
