import PushwireStore
import Synchronization

/// The SQLite engine's fan-out batches (`FanOutBatchRecord`), kept in memory like its leases
/// (`LeaseTable`): one process owns the data directory, so there is no other server to share a
/// fan-out with, and its pipeline never cuts a message (`sharesFanOutBatches` is false). They
/// exist so that the store contract holds on this engine too; they vanish with the process.
///
/// Each check-and-change is atomic under one lock; steps check theirs inside their writer job.
final class BatchTable: Sendable {
    struct Batch {
        var record: FanOutBatchRecord
        var openFrom: Int64 = 0
        var openTo: Int64 = -1
        var owner: String?
        var untilMS: Int64 = 0
    }
    private let batches = Mutex<[Int64: [Batch]]>([:])

    /// Whether the message was cut into batches.
    func isCut(_ messageID: Int64) -> Bool { batches.withLock { $0[messageID] != nil } }

    /// The ids among `ids` of messages not cut (those a whole-message claim may take).
    func uncut(_ ids: [Int64]) -> [Int64] {
        batches.withLock { batches in batches.isEmpty ? ids : ids.filter { batches[$0] == nil } }
    }

    /// Cuts `messageID` at `bounds` unless it was cut before.
    func cut(_ messageID: Int64, bounds: [String]) {
        batches.withLock { batches in
            guard batches[messageID] == nil else { return }
            let afters: [String?] = [nil] + bounds
            let throughs: [String?] = bounds + [nil]
            batches[messageID] = (0..<afters.count).map { index in
                Batch(record: FanOutBatchRecord(id: FanOutBatchID(messageID: messageID, index: index), afterHWID: afters[index],
                                                throughHWID: throughs[index]))
            }
        }
    }

    /// Claims open batches that are free or expired, oldest message first.
    func claim(_ lease: MessageLease, limit: Int) -> [FanOutBatchRecord] {
        batches.withLock { batches in
            var claimed: [FanOutBatchRecord] = []
            for messageID in batches.keys.sorted() {
                guard var list = batches[messageID] else { continue }
                for index in list.indices where claimed.count < limit && !list[index].record.done {
                    if list[index].owner != nil, list[index].untilMS >= lease.nowMS { continue }
                    list[index].owner = lease.owner
                    list[index].untilMS = lease.untilMS
                    claimed.append(list[index].record)
                }
                batches[messageID] = list
            }
            return claimed
        }
    }

    /// Renews the owner's leases among `ids` (batches not done); the ids it holds, ascending.
    func renew(_ ids: [FanOutBatchID], _ lease: MessageLease) -> [FanOutBatchID] {
        batches.withLock { batches in
            Set(ids).sorted().filter { id in
                guard let batch = batches[id.messageID]?[safe: id.index], batch.owner == lease.owner, !batch.record.done else { return false }
                batches[id.messageID]?[id.index].untilMS = lease.untilMS
                return true
            }
        }
    }

    /// Drops the owner's leases among `ids`.
    func release(_ ids: [FanOutBatchID], owner: String) {
        batches.withLock { batches in
            for id in ids where batches[id.messageID]?[safe: id.index]?.owner == owner {
                batches[id.messageID]?[id.index].owner = nil
                batches[id.messageID]?[id.index].untilMS = 0
            }
        }
    }

    /// The batch, or nil.
    func batch(_ id: FanOutBatchID) -> Batch? { batches.withLock { $0[id.messageID]?[safe: id.index] } }

    /// Why a step of batch `id` under `owner` may not be written, or nil when it may.
    func refusal(_ id: FanOutBatchID, owner: String) -> StoreError? {
        batches.withLock { batches in
            guard let batch = batches[id.messageID]?[safe: id.index] else { return .notFound("batch \(id.index) of message \(id.messageID)") }
            guard batch.owner == owner, !batch.record.done else {
                return .leaseLost("batch \(id.index) of message \(id.messageID) is held by another server (or done)")
            }
            return nil
        }
    }

    /// Records a step of batch `id`: its cursor, open range, renewed lease, done.
    /// - Returns: whether the message has no batch left open.
    func step(_ id: FanOutBatchID, cursor: String?, openFrom: Int64, openTo: Int64, finish: Bool, untilMS: Int64) -> Bool {
        batches.withLock { batches in
            guard var list = batches[id.messageID], list.indices.contains(id.index) else { return false }
            if let cursor { list[id.index].record.cursor = cursor }
            list[id.index].openFrom = openFrom
            list[id.index].openTo = openTo
            list[id.index].untilMS = untilMS
            if finish { list[id.index].record.done = true }
            batches[id.messageID] = list
            return list.allSatisfy(\.record.done)
        }
    }
}

extension Array {
    /// The element at `index`, or nil when it is out of range.
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
