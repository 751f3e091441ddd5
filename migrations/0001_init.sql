-- radref D1 schema, migration 1: bookkeeping that later migrations build on.
-- Applied by `make dev` and `make test` with `wrangler d1 migrations apply DB --local`.

-- One row per deployment of the schema, so operators can tell what a database holds.
CREATE TABLE IF NOT EXISTS schema_info (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT OR REPLACE INTO schema_info (key, value) VALUES ('created_by', 'radref');
