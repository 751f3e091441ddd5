-- Development users and keys, seeded by `make dev` into the local D1 state only.
-- The keys are documented in the README and are NOT secret: never load this into a deployed database.
-- Each key: rr_<id>_<secret>; only its SHA-256 is stored.
-- dev-alice: rr_devalice_radrefDevAliceKeyNotSecret01
INSERT OR IGNORE INTO users (id, name, created_at) VALUES ('dev-alice', 'Dev Alice', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
INSERT OR IGNORE INTO api_keys (id, user_id, name, key_hash, scopes, created_at) VALUES ('devalice', 'dev-alice', 'development key', '15a1244e480b7e7ed0838b535ad87f00613606ecb0e0eb0cd6dcc12a42071059', 'context templates webhooks events:publish', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
-- dev-bob: rr_devbob01_radrefDevBobKeyNotSecret0001
INSERT OR IGNORE INTO users (id, name, created_at) VALUES ('dev-bob', 'Dev Bob', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
INSERT OR IGNORE INTO api_keys (id, user_id, name, key_hash, scopes, created_at) VALUES ('devbob01', 'dev-bob', 'development key', '3bc7a56833a13efa1f72d380c26614e1e842a3288e221341ce5e189f42563d1a', 'context templates webhooks events:publish', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
