-- radref D1 schema, migration 5: an optional idempotency key per published event.
--
-- A publisher that retries `POST /api/v1/events` with the same `Idempotency-Key` header gets
-- the event it published the first time instead of a second one. The key is unique per
-- publishing user; events published without one leave it NULL (NULLs never collide).

ALTER TABLE events ADD COLUMN idempotency_key TEXT;

CREATE UNIQUE INDEX IF NOT EXISTS events_idempotency ON events(user_id, idempotency_key);
