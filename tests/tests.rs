//! Integration tests: they talk over HTTP to a running worker (`wrangler dev`), like a client.
//!
//! `make test` starts the worker on a free port and sets `RADREF_BASE_URL`; run them by hand
//! with `RADREF_BASE_URL=http://127.0.0.1:8787 cargo test --test integration` against
//! `make dev`.

mod support;

// Health, unknown paths, wrong methods, CORS preflight and the headers of every response.
mod platform;

// Corpus read routes: organs, systems and filters, detail, search, changes, RSS, coverage,
// caching and the rate limit.
mod corpus;

// Evaluating a system: GET and POST, markdown, 304, each refusal.
mod evaluate;

// Two versions of one guideline: the diff, re-scoring a patient and a cohort.
mod versions;

// Grounded context: keys, parameters, body limits, JSON and markdown, the evaluate links.
mod context;

// Report templates as two users: CRUD, filters, errors, voice commands, sanitising.
mod templates;

// IHE MRRT templates: import, export, the round trip, refusals, bound fields and evaluating a
// filled template.
mod mrrt;

// Webhooks: subscriptions, publishing, delivery through the real local Queue to a loopback
// receiver under each fault mode, retries, deactivation.
mod webhooks;
