import PushwireStore
import Synchronization

/// What each device last registered with, as two 64-bit hashes, so that re-registering an
/// unchanged device (every app launch) is answered without reading or writing the store.
///
/// Compact and bounded: 16 bytes of payload per device (about 40 MB of dictionary for a million
/// devices); past `capacity` entries it starts over, which costs only a read per device on its
/// next registration. Hashes are Swift's seeded `Hasher`, so they are valid within one process.
final class RegistrationFingerprints: Sendable {
    private let entries: Mutex<[Int: Int]>
    private let capacity: Int

    init(capacity: Int = 2_000_000) {
        self.capacity = capacity
        self.entries = Mutex([:])
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
        entries.withLock { $0[key] == fingerprint }
    }

    /// Remembers a registration that is now durable (or found identical in the store).
    func remember(key: Int, fingerprint: Int) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = fingerprint
        }
    }

    /// Forgets a device whose stored state changed by another path (tags, unregister).
    func forget(key: Int) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }
}
