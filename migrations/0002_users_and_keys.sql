-- radref D1 schema, migration 2: users and their API keys.
--
-- A key is shown once, when it is created, as `rr_<id>_<secret>`. Only the SHA-256 (hex) of the
-- whole key is stored, so a database dump reveals no usable key. The worker looks a key up by
-- its public id and compares the hashes in constant time.
-- Scopes (space-separated): context, templates, webhooks, events:publish.

CREATE TABLE IF NOT EXISTS users (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS api_keys (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id),
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    scopes     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);

CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys(user_id);
