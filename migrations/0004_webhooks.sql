-- radref D1 schema, migration 4: webhook subscriptions, published events, deliveries and the
-- attempt log.
--
-- A subscription's secret is stored only as XChaCha20-Poly1305 ciphertext under a key held in a
-- Worker secret (WEBHOOK_SECRET_KEY), bound to the subscription's id, so a dump of this database
-- alone does not reveal it.
--
-- An event's envelope is stored as the exact bytes that are posted, so every attempt to every
-- subscriber carries a byte-identical body. A delivery is one event to one subscription; it is
-- `pending` until it succeeds, fails for good (five attempts) or is cancelled. The consumer
-- claims a delivery before each attempt (claimed_at, a lease), so a queue message that arrives
-- twice cannot post the same attempt twice, and records each attempt under the primary key
-- (delivery_id, attempt).

CREATE TABLE IF NOT EXISTS webhooks (
    id                 TEXT PRIMARY KEY,
    user_id            TEXT NOT NULL REFERENCES users(id),
    url                TEXT NOT NULL,
    events             TEXT NOT NULL,             -- JSON array of event types
    secret_ciphertext  TEXT NOT NULL,
    active             INTEGER NOT NULL DEFAULT 1,
    deactivated_at     TEXT,
    deactivated_reason TEXT,                      -- delivery_failures | by_request
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS webhooks_user ON webhooks(user_id, created_at);

CREATE TABLE IF NOT EXISTS events (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id),
    type       TEXT NOT NULL,
    source     TEXT NOT NULL,                     -- publish | test
    created_at TEXT NOT NULL,
    body       TEXT NOT NULL                      -- the envelope as posted
);

CREATE TABLE IF NOT EXISTS deliveries (
    id              TEXT PRIMARY KEY,
    event_id        TEXT NOT NULL REFERENCES events(id),
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id),
    state           TEXT NOT NULL,                -- pending | succeeded | failed | cancelled
    attempts        INTEGER NOT NULL DEFAULT 0,   -- attempts made so far
    next_attempt_ms INTEGER,                      -- when the next attempt is due (epoch ms)
    claimed_ms      INTEGER,                      -- lease of the consumer making an attempt
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS deliveries_webhook ON deliveries(webhook_id, state);
CREATE INDEX IF NOT EXISTS deliveries_event ON deliveries(event_id, webhook_id);

CREATE TABLE IF NOT EXISTS attempts (
    delivery_id     TEXT NOT NULL REFERENCES deliveries(id),
    attempt         INTEGER NOT NULL,
    webhook_id      TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    type            TEXT NOT NULL,
    outcome         TEXT NOT NULL,                -- succeeded | failed
    status_code     INTEGER,
    duration_ms     INTEGER NOT NULL,
    error           TEXT,
    attempted_at    TEXT NOT NULL,
    attempted_ms    INTEGER NOT NULL,
    next_attempt_at TEXT,
    PRIMARY KEY (delivery_id, attempt)
);

CREATE INDEX IF NOT EXISTS attempts_webhook ON attempts(webhook_id, attempted_ms);
