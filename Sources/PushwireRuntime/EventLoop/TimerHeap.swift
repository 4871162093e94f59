/// A min-heap of deadlines on the monotonic clock, owned by one event loop.
///
/// The loop sleeps in `epoll_wait` until the earliest deadline, so there is no thread per timer.
/// Entries are not removed when their reason goes away (a call that completed before its deadline):
/// the action checks whether it still applies, which keeps scheduling O(log n) and cancel free.
struct TimerHeap {
    struct Entry {
        var deadline: UInt64
        var sequence: UInt64
        var action: () -> Void
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The earliest deadline, if any.
    var earliest: UInt64? { entries.first?.deadline }

    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) {
        nextSequence &+= 1
        entries.append(Entry(deadline: deadline, sequence: nextSequence, action: action))
        siftUp(entries.count - 1)
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
