import PushwireStore

/// A write that the group-commit writer may run together with the adjacent queued writes of the
/// same type as one multi-row statement.
///
/// Why: under load a batch holds dozens of writes of one kind (new devices registering), and
/// SQLite spends markedly less per row in one 64-row `INSERT … VALUES (…),(…),…` than in 64
/// one-row statements (parse-free, but each statement pays its own VDBE setup, cursor opens and
/// seeks from the root). The writer does not need to know what the writes are: it finds runs of
/// adjacent writes of one type in a batch and hands each run to `runGroup`.
///
/// Semantics kept per write: each completes with its own outcome. A group statement is all or
/// nothing (SQLite undoes a failed statement's changes, not the transaction's), so when one fails
/// its writes are run again one by one, and one bad row never fails the others. Order is kept:
/// rows of a statement are applied in VALUES order, and groups in queue order.
protocol MergeableWrite: Sendable {
    /// The group sizes `run` accepts besides 1, largest first: a run of n adjacent writes is cut
    /// greedily into groups of these sizes (and single writes), each one statement.
    static var groupSizes: [Int] { get }

    /// Runs `writes` (a count of 1 or one of `groupSizes`, in queue order) as one statement.
    /// On error none of them took effect.
    static func run(_ writes: ArraySlice<Self>, on connection: SQLiteConnection) throws(StoreError)

    /// Reports the outcome once the batch is durable (nil) or failed (the error). Called exactly
    /// once, on the store's syncer or writer thread: hand real work elsewhere.
    func complete(_ error: StoreError?)
}

extension MergeableWrite {
    /// Runs the writes of `jobs` (all `.mergeable` writes of this type, adjacent in the batch) in
    /// groups; returns each job's outcome, in order.
    static func runGroup(_ jobs: ArraySlice<GroupCommitWriter.Job>, on connection: SQLiteConnection) -> [StoreError?] {
        var writes: [Self] = []
        writes.reserveCapacity(jobs.count)
        for job in jobs {
            if case .mergeable(let write) = job.work, let typed = write as? Self { writes.append(typed) }
        }
        // The batch runner only groups writes of this type; anything else would be a bug there,
        // and is then reported per write rather than run as some other type.
        guard writes.count == jobs.count else {
            return Array(repeating: .internalError("mixed write group in a merged write"), count: jobs.count)
        }
        var outcomes: [StoreError?] = []
        outcomes.reserveCapacity(writes.count)
        var start = writes.startIndex
        while start < writes.endIndex {
            let remaining = writes.endIndex - start
            let size = groupSizes.first { $0 <= remaining } ?? 1
            let group = writes[start ..< start + size]
            do {
                try run(group, on: connection)
                outcomes.append(contentsOf: repeatElement(nil, count: size))
            } catch {
                GroupCommitWriter.noteAbort(error, on: connection)
                if size == 1 || connection.isAutocommit {
                    // Alone, or SQLite rolled the whole transaction back: retrying each write
                    // would run it outside any transaction. The writer fails them all.
                    outcomes.append(contentsOf: repeatElement(Optional(error), count: size))
                } else {
                    // Nothing of the group took effect: each write again alone, so only the
                    // bad ones fail.
                    for index in group.indices {
                        if connection.isAutocommit {
                            // A retry made SQLite roll the transaction back: the rest fail with it.
                            outcomes.append(connection.transactionAbort ?? error)
                            continue
                        }
                        do {
                            try run(writes[index ... index], on: connection)
                            outcomes.append(nil)
                        } catch {
                            GroupCommitWriter.noteAbort(error, on: connection)
                            outcomes.append(error)
                        }
                    }
                }
            }
            start += size
        }
        return outcomes
    }
}

extension GroupCommitWriter {
    /// What a queued job runs: a closure, or a write that may be merged with its neighbours.
    enum Work: Sendable {
        case closure(run: @Sendable (SQLiteConnection) -> @Sendable (StoreError?) -> Void,
                     fail: @Sendable (StoreError) -> Void)
        case mergeable(any MergeableWrite)
    }

    /// Runs a batch's jobs on `connection` in order, each adjacent run of mergeable writes of
    /// one type through its `runGroup`; appends their completions to `completions`, in order.
    /// Between jobs (and runs of merged ones) it asks `stopEarly`, and stops when that says so;
    /// returns how many jobs ran.
    static func runJobs(_ batch: [Job], on connection: SQLiteConnection,
                        into completions: inout [@Sendable (StoreError?) -> Void],
                        health: WriteHealth, stopEarly: () -> Bool = { false }) -> Int {
        var index = batch.startIndex
        while index < batch.endIndex {
            // A job after which SQLite rolled the whole transaction back ends the list: the next
            // one would run outside any transaction.
            if index > batch.startIndex, connection.isAutocommit || stopEarly() { return index }
            switch batch[index].work {
            case .closure(let run, _):
                completions.append(run(connection))
                index += 1
            case .mergeable(let first):
                let kind = ObjectIdentifier(type(of: first))
                var end = index + 1
                while end < batch.endIndex, case .mergeable(let next) = batch[end].work, ObjectIdentifier(type(of: next)) == kind {
                    end += 1
                }
                let outcomes = type(of: first).runGroup(batch[index ..< end], on: connection)
                for (job, outcome) in zip(batch[index ..< end], outcomes) {
                    // A failed commit fails every write; otherwise each gets its own outcome.
                    if case .mergeable(let write) = job.work {
                        completions.append { commitError in
                            let error = commitError ?? outcome
                            health.record(error)
                            write.complete(error)
                        }
                    }
                }
                index = end
            }
        }
        return index
    }
}
