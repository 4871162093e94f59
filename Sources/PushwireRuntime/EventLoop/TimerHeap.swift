/// A min-heap of deadlines on the monotonic clock, owned by one event loop.
///
/// The loop sleeps in `epoll_wait` until the earliest deadline, so there is no thread per timer.
/// Entries are not removed when their reason goes away (a call that completed before its deadline):
/// the action checks whether it still applies, which keeps scheduling O(log n) and cancel free.
/// Dead entries are dropped in bulk instead: each time the heap has doubled since the last sweep,
/// the entries whose `isLive` says their reason went away are removed. Without that, calls with
/// long deadlines left one entry each until the deadline passed: millions of entries at a high call
/// rate, though only a few hundred calls were in flight (docs/journal/2026-11-29-registration-and-sync.md).
struct TimerHeap {
    struct Entry {
        var deadline: UInt64
        var sequence: UInt64
        var action: () -> Void
        /// Whether the entry's reason still holds; nil: until its deadline.
        var isLive: (() -> Bool)?
    }

    /// The fewest entries at which a sweep runs.
    static let minimumSweep = 1024

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0
    /// The count at which the next `schedule` sweeps dead entries first.
    private var sweepAt = TimerHeap.minimumSweep

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The earliest deadline, if any.
    var earliest: UInt64? { entries.first?.deadline }

    /// Adds `action` at `deadline`; `isLive`, when given, tells a sweep whether it still matters.
    mutating func schedule(at deadline: UInt64, isLive: (() -> Bool)? = nil, _ action: @escaping () -> Void) {
        if entries.count >= sweepAt { sweepDeadEntries() }
        nextSequence &+= 1
        entries.append(Entry(deadline: deadline, sequence: nextSequence, action: action, isLive: isLive))
        siftUp(entries.count - 1)
    }

    /// Drops the entries whose reason went away and restores the heap, in O(n); run when the heap
    /// has doubled since the last sweep, so O(1) per `schedule` over time, and the heap holds at
    /// most about twice its live entries.
    private mutating func sweepDeadEntries() {
        entries.removeAll { $0.isLive?() == false }
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        sweepAt = max(Self.minimumSweep, 2 * entries.count)
    }

    /// Removes and returns the earliest entry if its deadline is at or before `now`.
    mutating func popExpired(now: UInt64) -> Entry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return first
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(entries[child], entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < count, Self.before(entries[left], entries[smallest]) { smallest = left }
            if right < count, Self.before(entries[right], entries[smallest]) { smallest = right }
            if smallest == parent { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
