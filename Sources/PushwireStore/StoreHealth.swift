/// Whether a store can take writes now, as its engine last found out: what Health/Check
/// reports. Reading it never waits (it is a value the engine keeps, not a probe).
public enum StoreHealth: Sendable, Equatable {
    /// Writes are expected to succeed.
    case serving
    /// Writes cannot succeed until something changes (the disk is full or failed a sync, the
    /// database is unreachable, the store is closed); `reason` says what, for a person.
    case notServing(reason: String)
}

/// How much a store has written since it was opened: for tests ("this call wrote nothing") and
/// metrics. Counts only writes that were acknowledged.
public struct StoreStatistics: Sendable, Equatable {
    /// Transactions committed (one may carry many writes).
    public var transactions: Int
    /// Writes acknowledged (each call of a write requirement that succeeded counts once).
    public var writes: Int
    /// Time the committed transactions spent in COMMIT, summed (0 where an engine does not
    /// measure it).
    public var commitNanoseconds: UInt64
    /// Writes queued for the writer and not yet taken into a transaction, at the moment read
    /// (0 where an engine does not know it).
    public var queuedWrites: Int
    /// Transactions run again because the database aborted them as a deadlock victim or for a
    /// serialization failure (0 where an engine never retries).
    public var retriedTransactions: Int

    /// Creates statistics.
    public init(transactions: Int, writes: Int, commitNanoseconds: UInt64 = 0, queuedWrites: Int = 0,
                retriedTransactions: Int = 0) {
        self.transactions = transactions
        self.writes = writes
        self.commitNanoseconds = commitNanoseconds
        self.queuedWrites = queuedWrites
        self.retriedTransactions = retriedTransactions
    }
}
