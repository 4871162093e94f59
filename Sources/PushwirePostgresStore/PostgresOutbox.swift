/// The shared outbox on PostgreSQL (schema version 10): `message_outbox` holds a row
/// (`send_at_ms`, `message_id`) for each message whose status is scheduled (1) or sending (2),
/// and for no other message. The claims and due reads walk it in send-time order and join the
/// message rows by id, whose status they test; it lives apart from `messages` so that no UPDATE
/// of a message row changes an indexed column (`PostgresSchema`, version 8: the steps' UPDATEs
/// are HOT). It holds no status of its own (version 10): moving a row from scheduled to
/// sending at each message's first step changed its key, an update that could not be HOT.
///
/// Keeping the rule: a message enters the outbox where it is inserted (`MessageInsertGroup`,
/// always scheduled), and every UPDATE that may end a message's sending is written through
/// `updatingStatus`, which takes its outbox row out in the same statement. Nothing moves a status
/// from 3 or 4 back to 1 or 2, and nothing changes a message's `send_at_ms`.
enum PostgresOutbox {
    /// The ids of the outbox's rows due at $2 whose message row `d` passes `test`, by send time
    /// then id, at most `limit` (a parameter, `$n`): a walk in key order that the LIMIT stops
    /// early. The test is a subquery, never a join, so that the walk is the plan whatever the
    /// statistics say (a join could be planned from `messages`, scanning every message ever sent).
    static func dueWalk(_ test: String, limit: String) -> String {
        """
        SELECT o.message_id FROM message_outbox o
        WHERE o.send_at_ms <= $2 AND (SELECT \(test) FROM messages d WHERE d.id = o.message_id)
        ORDER BY o.send_at_ms, o.message_id LIMIT \(limit)
        """
    }

    /// `update`, an UPDATE of `messages` ending in `RETURNING x.id, x.status, x.send_at_ms` (x the
    /// table or its alias; more columns may follow), as one statement that also takes each row
    /// it changed out of the outbox when its new status is neither 1 nor 2. It returns what
    /// `update` returns, one row for each row it changed.
    ///
    /// The outbox rows are found one by one, by key, and deleted by their tuple ids (`ctid`): no
    /// join of `changed` with the outbox, whose order the planner would choose from the outbox's
    /// statistics. The outbox is a queue — a few hundred live rows, tens of thousands of dead
    /// ones between two vacuums, nearly empty whenever the senders catch up — and a plan made
    /// while it looked nearly empty (after an ANALYZE at a quiet moment) joined it by reading all
    /// of it for each message, then kept that plan as the outbox grew: each step cost 54–77 µs
    /// instead of 14–19, and CreateMessage on two servers lost a fifth of its rate with
    /// PostgreSQL's CPU a message doubled (docs/journal/2026-12-06-pg-plans.md). A row found by
    /// its key and then by its ctid has one plan at any size. A status change holds its message
    /// row's lock, so no other statement takes the same outbox row out meanwhile.
    static func updatingStatus(_ update: String) -> String {
        """
        WITH changed AS (\(update)),
            left_outbox AS (DELETE FROM message_outbox WHERE ctid = ANY(ARRAY(
                                SELECT (SELECT o.ctid FROM message_outbox o WHERE o.send_at_ms = c.send_at_ms AND o.message_id = c.id LIMIT 1)
                                FROM changed c WHERE c.status NOT IN (1, 2))))
        SELECT * FROM changed
        """
    }
}
