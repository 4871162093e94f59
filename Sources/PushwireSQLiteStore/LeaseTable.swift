import PushwireStore
import Synchronization

/// The SQLite engine's message leases (`MessageLease`), kept in memory: only one process may
/// open a data directory (`DataDirectoryLock`), so the leases of a process that died died with
/// it, and the next one finds every message free, as a single server always did. Owners other
/// than the process's own appear only in tests of the contract, which this keeps all the same.
///
/// Each check-and-take is atomic under one lock; steps check theirs inside their writer job.
final class LeaseTable: Sendable {
    private struct Held {
        var owner: String
        var untilMS: Int64
    }
    private let held = Mutex<[Int64: Held]>([:])

    /// Takes or renews the lease of `messageID` for `lease.owner`: when it is free, expired or
    /// already the owner's (`orTakeOver`), or only when it is the owner's (a step that does not
    /// start the message). False: another owner holds it; nothing changed.
    func take(_ messageID: Int64, _ lease: MessageLease, orTakeOver: Bool) -> Bool {
        held.withLock { held in
            // One hash of the id: the entry found is renewed in place.
            guard let index = held.index(forKey: messageID) else {
                if orTakeOver { held[messageID] = Held(owner: lease.owner, untilMS: lease.untilMS) }
                return orTakeOver
            }
            if held.values[index].owner != lease.owner, !orTakeOver || held.values[index].untilMS >= lease.nowMS { return false }
            held.values[index] = Held(owner: lease.owner, untilMS: lease.untilMS)
            return true
        }
    }

    /// Claims each of `ids` that is free, expired or (its `takingOwn`) the owner's, in order, up
    /// to `limit`.
    func claim(_ ids: [(id: Int64, takingOwn: Bool)], _ lease: MessageLease, limit: Int) -> [Int64] {
        held.withLock { held in
            var claimed: [Int64] = []
            for (id, takingOwn) in ids where claimed.count < limit {
                if let current = held[id], current.untilMS >= lease.nowMS, current.owner != lease.owner || !takingOwn { continue }
                held[id] = Held(owner: lease.owner, untilMS: lease.untilMS)
                claimed.append(id)
            }
            return claimed
        }
    }

    /// Gives each message just created under a lease (`NewMessageRecord.lease`) its lease:
    /// `created[i]` is what `messages[i]` became, and one answered with the message first
    /// stored for its transaction id (another code) keeps what it has.
    func hold(_ messages: [NewMessageRecord], created: [MessageRecord]) {
        held.withLock { held in
            // By index, no list of (id, lease) pairs built: copying and destroying those went
            // through the runtime's generic tuple witnesses.
            for index in created.indices where index < messages.count {
                guard let lease = messages[index].lease, created[index].code == messages[index].code else { continue }
                held[created[index].id] = Held(owner: lease.owner, untilMS: lease.untilMS)
            }
        }
    }

    /// Renews the owner's leases among `ids`; the ids it holds.
    func renew(_ ids: [Int64], _ lease: MessageLease) -> [Int64] {
        held.withLock { held in
            ids.filter { id in
                guard held[id]?.owner == lease.owner else { return false }
                held[id]?.untilMS = lease.untilMS
                return true
            }
        }
    }

    /// Drops the owner's leases among `ids` (released, or their messages finished).
    func release(_ ids: [Int64], owner: String?) {
        held.withLock { held in
            for id in ids where owner == nil || held[id]?.owner == owner { held.removeValue(forKey: id) }
        }
    }

    /// How many leases are held (bounds how far ahead a claim reads).
    var count: Int { held.withLock { $0.count } }
}
