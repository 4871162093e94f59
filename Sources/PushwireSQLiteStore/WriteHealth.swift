import PushwireStore
import Synchronization

/// Whether the last writes found room on the disk: a write that failed with a full disk makes
/// the store `notServing` (Health/Check reports it) until a later write succeeds. Other failures
/// (a name taken) say nothing about the disk and change nothing here.
final class WriteHealth: Sendable {
    private let fullReason = Mutex<String?>(nil)
    /// Whether `fullReason` is set: a successful write (every write, on the completion thread)
    /// and Health/Check (every call, on the event loops) look at this rather than taking the lock.
    private let isFull = Atomic<Bool>(false)

    /// Notes a write's outcome (nil: it succeeded).
    func record(_ error: StoreError?) {
        switch error {
        case nil:
            guard isFull.load(ordering: .relaxed) else { return }
            fullReason.withLock { reason in
                reason = nil
                isFull.store(false, ordering: .relaxed)
            }
        case .storageFull(let reason)?:
            fullReason.withLock { current in
                current = reason
                isFull.store(true, ordering: .relaxed)
            }
        default:
            break
        }
    }

    /// Why writes cannot succeed now, or nil.
    var notServingReason: String? {
        guard isFull.load(ordering: .relaxed) else { return nil }
        return fullReason.withLock { $0.map { StoreError.storageFull($0).description } }
    }
}
