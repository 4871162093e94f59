#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import Synchronization

/// A fixed set of counters, striped over a few shards so that threads recording at once (the
/// event loops, the store's syncer, the pool threads of off-loop handlers) rarely touch the same
/// cache line; a scrape sums the shards. Recording is one relaxed atomic add. Each event loop
/// records in the shard of its index (`claimShard`), so two loops never share a line; other
/// threads in one derived from their thread id (a shared line costs a cache-line transfer per
/// add: two loops hashed together, one run in eight with two loops, would pay it on every call).
///
/// `@unchecked Sendable`: the slots are atomics, allocated once in `init` and freed in `deinit`
/// after every user is gone; the pointer itself never changes.
final class ShardedCounters: @unchecked Sendable {
    /// Shards: a power of two, at least the event loops of a small host.
    static let shardCount = 8
    /// Slots per shard, rounded up so each shard starts on its own 64-byte line.
    private let stride: Int
    let count: Int
    private let slots: UnsafeMutablePointer<Atomic<UInt64>>

    init(count: Int) {
        self.count = count
        stride = (count + 7) & ~7
        slots = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: stride * Self.shardCount)
        for index in 0..<(stride * Self.shardCount) {
            (slots + index).initialize(to: Atomic<UInt64>(0))
        }
    }

    deinit {
        slots.deinitialize(count: stride * Self.shardCount)
        slots.deallocate()
    }

    /// Makes the calling thread record in shard `index` modulo `shardCount` (an event loop, with
    /// its index, when its thread starts).
    static func claimShard(_ index: Int) {
        cpw_set_counter_shard(Int32(truncatingIfNeeded: index & (shardCount - 1)))
    }

    /// The calling thread's shard: the one it claimed, or else its id (the address of its thread
    /// block, so aligned and far apart) mixed by a Fibonacci multiply, whose top bits spread such
    /// values well.
    @inline(__always)
    static var currentShard: Int {
        let claimed = Int(cpw_counter_shard())
        if claimed >= 0 { return claimed }
        return Int(truncatingIfNeeded: (UInt64(UInt(pthread_self())) &* 0x9E37_79B9_7F4A_7C15) >> 61)
    }

    /// Adds `amount` to counter `index`.
    @inline(__always)
    func add(_ index: Int, _ amount: UInt64 = 1) {
        add(index, amount, inShard: Self.currentShard)
    }

    /// Adds `amount` to counter `index` in `shard` (`currentShard`, read once by a caller that
    /// adds to several counters: each read is a thread-local lookup).
    @inline(__always)
    func add(_ index: Int, _ amount: UInt64 = 1, inShard shard: Int) {
        guard index >= 0, index < count else { return }
        slots[shard * stride + index].wrappingAdd(amount, ordering: .relaxed)
    }

    /// The sum of counter `index` over the shards.
    func value(_ index: Int) -> UInt64 {
        var total: UInt64 = 0
        for shard in 0..<Self.shardCount { total &+= slots[shard * stride + index].load(ordering: .relaxed) }
        return total
    }
}
