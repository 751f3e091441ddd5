-- radref D1 schema, migration 7: the recovery sweep (every few minutes) looks for pending
-- deliveries that were due a while ago; this index keeps that a range scan over pending rows.
CREATE INDEX IF NOT EXISTS deliveries_pending_due ON deliveries(next_attempt_ms)
    WHERE state = 'pending';
