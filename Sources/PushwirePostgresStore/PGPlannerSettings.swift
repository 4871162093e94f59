/// The planner settings of every connection the engine opens: keyed access only — no sequential
/// or bitmap scans, no hash or merge joins where an index path exists. Each is a penalty added to
/// a plan's cost, not a ban: a statement with no index to use still scans.
///
/// Why: every statement of the engine reads or writes rows by key (a message's id, a device's
/// (app, hwid), an ordered walk of `devices` by hwid), and an index plan is right for them at any
/// table size. The planner picked others from statistics that were wrong at the moment it planned,
/// and kept them (a prepared statement's generic plan lasts until the next ANALYZE of its tables):
/// - the outbox (`PostgresOutbox`) is a queue, a few hundred live rows and tens of thousands of
///   dead ones between two vacuums. Planned after an ANALYZE at a quiet moment, each step UPDATE
///   joined it by a bitmap scan of all of it: 57 µs a step instead of 14, CreateMessage on two
///   servers down from 12.8 k to 9.8 k calls/s with 14,000 messages left behind;
/// - `devices` filled by a bulk registration is not analyzed for up to a minute: the fan-out's
///   walk sorted the whole table for each batch, and a 1 M-device message took 8.2 s, not 1.8.
/// With these settings both plans stay index plans whatever the statistics say, at no cost to
/// the statements that had them already (docs/journal/2026-12-06-pg-plans.md).
enum PGPlannerSettings {
    /// Sent once per connection, as it opens (a `SET` lasts for the session).
    static let sql = """
        SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off
        """
}
