-- radref D1 schema, migration 8: webhook secret rotation. Rotating keeps the secret it
-- replaces, sealed like the current one, until the end of the overlap; until then every
-- delivery is signed with both, so a subscriber can switch secrets without missing one.
ALTER TABLE webhooks ADD COLUMN previous_secret_ciphertext TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secret_expires_ms INTEGER;
