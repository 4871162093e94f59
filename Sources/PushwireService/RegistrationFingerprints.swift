import PushwireStore
import Synchronization

/// What each device last registered with, as two 64-bit hashes, so that re-registering an
/// unchanged device (every app launch) is answered without reading or writing the store.
///
/// Compact and bounded: 16 bytes of payload per device (about 40 MB of dictionary for a million
/// devices); past `capacity` entries it starts over, which costs only a read per device on its
/// next registration. Hashes are Swift's seeded `Hasher`, so they are valid within one process.
///
/// Servers sharing a database each keep their own: a fingerprint says what *this* server last
/// wrote or found, so a change made through another server (re-registered with other values,
/// unregistered, re-tagged) must remove it, or this server would answer "unchanged" from it and
/// not write. The store's change feed reports those changes (`StoreChange.devices`, applied by
/// `forget`); a device the store did not have before is never reported, since nobody can hold
/// its fingerprint. When the feed may have missed some, every entry goes (`forgetAll`).
final class RegistrationFingerprints: Sendable {
    /// Writes in flight for one device. Their completions may run in any order, whatever the
    /// order they committed in, so a fingerprint is remembered only by a write that overlapped
    /// no other write of the same device; otherwise the next registration reads the store.
    private struct Writing {
        var active: Int
        var overlapped: Bool
    }

    private struct State {
        var entries: [Int: Int] = [:]
        var writing: [Int: Writing] = [:]

        mutating func beginWrite(key: Int) {
            if var writing = self.writing[key] {
                writing.active += 1
                writing.overlapped = true
                self.writing[key] = writing
            } else {
                self.writing[key] = Writing(active: 1, overlapped: false)
            }
        }

        mutating func insert(key: Int, fingerprint: Int, capacity: Int) {
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = fingerprint
        }
    }

    /// One lock and two dictionaries per shard: both event loops check and end registrations
    /// all the time, and with a single lock they contended for it (`Mutex._lockSlow` was a few
    /// percent of a loop's samples in `perf`); smaller tables also grow in smaller steps.
    private final class Shard: Sendable {
        let state = Mutex(State())
    }

    private static let shardBits = 5
    private let shards: [Shard]
    /// Entries per shard before it starts over.
    private let capacity: Int

    init(capacity: Int = 2_000_000) {
        self.shards = (0 ..< 1 << Self.shardBits).map { _ in Shard() }
        self.capacity = max(1, capacity >> Self.shardBits)
    }

    /// The shard of `key`, from its top bits after a multiplicative mix (keys are hashes, but
    /// the mix also spreads small or patterned ones).
    private func shard(_ key: Int) -> Shard {
        let mixed = UInt64(UInt(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15
        return shards[Int(truncatingIfNeeded: mixed >> UInt64(64 - Self.shardBits))]
    }

    static func key(applicationID: Int64, hwid: String) -> Int {
        var hasher = Hasher()
        hasher.combine(applicationID)
        hasher.combine(hwid)
        return hasher.finalize()
    }

    static func fingerprint(_ device: DeviceRecord, tags: [TagChange]) -> Int {
        var hasher = Hasher()
        hasher.combine(0x5057_4650)  // distinct from `key`'s input layout
        hasher.combine(device)
        hasher.combine(tags)
        return hasher.finalize()
    }

    /// Whether the device last registered with exactly this fingerprint.
    func matches(key: Int, fingerprint: Int) -> Bool {
        shard(key).state.withLock { $0.entries[key] == fingerprint }
    }

    /// Whether the device last registered with exactly this fingerprint; when not, begins its
    /// write as `beginWrite` does — one lock and one lookup for the fast path's new devices.
    func matchesElseBeginWrite(key: Int, fingerprint: Int) -> Bool {
        shard(key).state.withLock { state in
            if let index = state.entries.index(forKey: key) {
                if state.entries.values[index] == fingerprint { return true }
                state.entries.remove(at: index)
            }
            state.beginWrite(key: key)
            return false
        }
    }

    /// Remembers a registration found identical in the store, unless a write of the device is in
    /// flight (whose outcome the read may not reflect).
    func rememberStored(key: Int, fingerprint: Int) {
        shard(key).state.withLock { state in
            guard state.writing[key] == nil else { return }
            state.insert(key: key, fingerprint: fingerprint, capacity: capacity)
        }
    }

    /// Call before writing the device (registration, tags, unregister): forgets its fingerprint.
    func beginWrite(key: Int) {
        shard(key).state.withLock { state in
            state.entries[key] = nil
            state.beginWrite(key: key)
        }
    }

    /// Forgets the device's fingerprint because another server changed the device (the store's
    /// change feed): its next registration goes to the store. A write of the device in flight
    /// here counts as overlapped, so that its completion does not remember a fingerprint the
    /// other server's change may already have made stale.
    func forget(key: Int) {
        shard(key).state.withLock { state in
            state.entries[key] = nil
            state.writing[key]?.overlapped = true
        }
    }

    /// Forgets every fingerprint, as `forget` does each (the change feed may have missed
    /// changes); every registration goes to the store once again.
    func forgetAll() {
        for shard in shards {
            shard.state.withLock { state in
                state.entries.removeAll()
                for key in state.writing.keys { state.writing[key]?.overlapped = true }
            }
        }
    }

    /// Call after the write finished (durably, or not): remembers `fingerprint` (nil for writes
    /// other than registrations, or failed ones) when no other write of the device overlapped.
    func endWrite(key: Int, fingerprint: Int?) {
        shard(key).state.withLock { state in
            guard var writing = state.writing[key] else { return }
            writing.active -= 1
            if let fingerprint, !writing.overlapped {
                state.insert(key: key, fingerprint: fingerprint, capacity: capacity)
            }
            state.writing[key] = writing.active == 0 ? nil : writing
        }
    }
}
