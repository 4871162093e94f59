/// The shared outbox on PostgreSQL (schema version 8): `message_outbox` holds a row (`status`,
/// `send_at_ms`, `message_id`) for each message whose status is scheduled (1) or sending (2),
/// with that status, and for no other message. The claims and due reads walk it in (status,
/// send time) order and join the message rows by id; it lives apart from `messages` so that no
/// UPDATE of a message row changes an indexed column (`PostgresSchema`, version 8: the steps'
/// UPDATEs are HOT).
///
/// Keeping the rule: a message enters the outbox where it is inserted (`MessageInsertGroup`,
/// always scheduled), and every UPDATE that may change a message's status is written through
/// `updatingStatus`, which moves or removes its outbox row in the same statement. Nothing moves
/// a status from 3 or 4 back to 1 or 2, and nothing changes a message's `send_at_ms`.
enum PostgresOutbox {
    /// `update`, an UPDATE of `messages` ending in `RETURNING x.id, x.status, x.send_at_ms` (x the
    /// table or its alias), as one statement that also gives each row it changed its new status
    /// in the outbox, or takes it out when that status is neither 1 nor 2. It returns the ids of
    /// the rows `update` changed, one row each.
    static func updatingStatus(_ update: String) -> String {
        """
        WITH changed AS (\(update)),
            moved AS (UPDATE message_outbox o SET status = c.status FROM changed c
                      WHERE o.status IN (1, 2) AND o.send_at_ms = c.send_at_ms AND o.message_id = c.id
                          AND c.status IN (1, 2) AND o.status <> c.status),
            left_outbox AS (DELETE FROM message_outbox o USING changed c
                            WHERE o.status IN (1, 2) AND o.send_at_ms = c.send_at_ms AND o.message_id = c.id
                                AND c.status NOT IN (1, 2))
        SELECT id FROM changed
        """
    }
}
