/// The planner settings of every connection the engine opens: keyed access only — no sequential
/// or bitmap scans, no hash or merge joins where an index path exists. Each is a penalty added to
/// a plan's cost, not a ban: a statement with no index to use still scans.
///
/// Why: every statement of the engine reads or writes rows by key (a message's id, a device's
/// (app, hwid), an ordered walk of `devices` by hwid), and an index plan is right for them at any
/// table size, while the planner chooses from statistics that can be wrong when it plans, and a
/// prepared statement keeps its generic plan until the next ANALYZE of its tables. `devices`
/// filled by a bulk registration is not analyzed for up to a minute: the fan-out's keyset walk
/// (`PostgresStore.targetsSQL`, `batchBounds`) was planned as a bitmap scan and a sort of
/// everything after its bound (the table estimated at 1,100 rows), about 300 ms a walk, and a
/// 1 M-device message sent right after its devices registered took 8.2 s instead of 1.8. With
/// these settings the walk stays an ordered index scan whatever the statistics say, at no cost
/// to statements that had index plans already (docs/journal/2026-12-06-pg-plans.md). They do
/// not choose a join's order: a join whose best order depends on a table's size (the outbox,
/// a queue) is written as per-row lookups instead (`PostgresOutbox.updatingStatus`).
enum PGPlannerSettings {
    /// Sent once per connection, as it opens (a `SET` lasts for the session).
    static let sql = """
        SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off
        """
}
