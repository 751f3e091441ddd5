-- radref D1 schema, migration 6: at most one pending delivery per webhook and event.
--
-- Redelivering checked for a pending delivery and then inserted one; concurrent requests all
-- passed the check. The partial unique index lets the database decide: the second insert is
-- refused and answered 409. Duplicates that an earlier race left pending are cancelled first
-- (the oldest stays), so the index can be built on existing data.

UPDATE deliveries SET state = 'cancelled', next_attempt_ms = NULL, claimed_ms = NULL
WHERE state = 'pending'
  AND id NOT IN (
    SELECT MIN(id) FROM deliveries WHERE state = 'pending' GROUP BY webhook_id, event_id
  );

CREATE UNIQUE INDEX IF NOT EXISTS deliveries_one_pending
  ON deliveries (webhook_id, event_id) WHERE state = 'pending';
