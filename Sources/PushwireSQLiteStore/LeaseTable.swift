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
            if let current = held[messageID], current.owner != lease.owner {
                guard orTakeOver, current.untilMS < lease.nowMS else { return false }
            } else if held[messageID] == nil, !orTakeOver {
                return false
            }
            held[messageID] = Held(owner: lease.owner, untilMS: lease.untilMS)
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

    /// Gives each message its lease (messages just created under one: `NewMessageRecord.lease`).
    func hold(_ leases: [(messageID: Int64, lease: MessageLease)]) {
        held.withLock { held in
            for (id, lease) in leases { held[id] = Held(owner: lease.owner, untilMS: lease.untilMS) }
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
