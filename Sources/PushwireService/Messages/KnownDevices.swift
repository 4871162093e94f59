import PushwireStore
import Synchronization

/// Which (application, hwid) pairs the store is known to hold with a push token, so that
/// CreateMessage reports unknown and tokenless devices without a store read for devices it
/// already looked up.
///
/// Only positive answers are kept. "Known" stays true (a device row is never deleted);
/// "has a token" may not (unregistering clears it), which at worst leaves that hwid out of
/// `tokenless_devices`, a warning, never who is targeted. A read transaction costs tens of
/// microseconds while the writer commits hundreds of times a second, more than the rest of a
/// CreateMessage to ten devices. Keys are 64-bit seeded hashes (8 bytes a device); a collision
/// would at worst leave one hwid out of `unknown_devices`, never change who is targeted (the
/// fan-out selects from the store). Bounded: past `capacity` entries it starts over.
final class KnownDevices: Sendable {
    private let keys = Mutex(Set<Int>())
    private let capacity: Int

    init(capacity: Int = 1_000_000) {
        self.capacity = capacity
    }

    /// What CreateMessage reports about the hwids it names.
    struct Answer: Equatable {
        /// Hwids the application's store does not hold (each once, in order).
        var unknown: [String] = []
        /// Hwids it holds with an empty push token (each once, in order): never targeted.
        var tokenless: [String] = []
    }

    /// The hwids among `hwids` the application's store does not hold, and those it holds
    /// without a push token. Devices cached as known have a token as this cache last read
    /// them: only devices read with one are cached, so a tokenless device is read again each
    /// time (and is cached once it registers a token).
    func check(applicationID: Int64, hwids: [String], store: any MessageStore) async throws(StoreError) -> Answer {
        let keyed = hwids.map { (hwid: $0, key: Self.key(applicationID, $0)) }
        let missing = keys.withLock { keys in keyed.filter { !keys.contains($0.key) } }
        if missing.isEmpty { return Answer() }
        // Byte for byte throughout: canonically equal hwids are two devices.
        let queried = ByteOrder.distinct(missing.map(\.hwid))
        let knownList = try await store.knownDevices(applicationID: applicationID, hwids: queried)
        let known = Set(knownList.map(ByteOrder.Key.init))
        let tokenless = knownList.isEmpty ? Set<ByteOrder.Key>()
            : Set(try await store.tokenlessDevices(applicationID: applicationID, hwids: knownList).map(ByteOrder.Key.init))
        keys.withLock { keys in
            if keys.count + known.count > capacity { keys.removeAll() }
            for entry in missing {
                let hwid = ByteOrder.Key(entry.hwid)
                if known.contains(hwid) && !tokenless.contains(hwid) { keys.insert(entry.key) }
            }
        }
        var reported = Set<ByteOrder.Key>()
        var answer = Answer()
        for entry in missing {
            let hwid = ByteOrder.Key(entry.hwid)
            guard reported.insert(hwid).inserted else { continue }
            if !known.contains(hwid) {
                answer.unknown.append(entry.hwid)
            } else if tokenless.contains(hwid) {
                answer.tokenless.append(entry.hwid)
            }
        }
        return answer
    }

    /// `check`'s unknown hwids answered from the cache alone: [] when every hwid is cached
    /// (known, with a token when last read; so none is reported tokenless either), nil when
    /// some need a store read (the cache holds only positive answers).
    func cachedUnknown(applicationID: Int64, hwids: [String]) -> [String]? {
        if hwids.isEmpty { return [] }
        var keyed: [Int] = []
        keyed.reserveCapacity(hwids.count)
        for hwid in hwids { keyed.append(Self.key(applicationID, hwid)) }
        let allKnown = keys.withLock { keys in keyed.allSatisfy { keys.contains($0) } }
        return allKnown ? [] : nil
    }

    private static func key(_ applicationID: Int64, _ hwid: String) -> Int {
        var hasher = Hasher()
        hasher.combine(applicationID)
        // The bytes, not the String: its hash is canonical equivalence's (normalizing), and the
        // store tells canonically equal hwids apart.
        hasher.combine(ByteOrder.Key(hwid))
        return hasher.finalize()
    }
}
