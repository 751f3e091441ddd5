//! Host tests of the whole service through the app function (`app::handle`), on SQLite with
//! `migrations/`: what needs a database, a scripted clock, queue or subscriber, run without a
//! worker. They sit above the dispatcher, as a client would. The same routes run over HTTP
//! against `wrangler dev` in `tests/`.

/// One operation, two doors: each bad argument gets the same refusal over HTTP and MCP.
mod doors;
/// Every row of the endpoint table: 401, 403, 405 with `Allow`, HEAD, 404, `llms.txt` links.
mod endpoints;
/// Evaluating a system over HTTP: JSON, markdown, 304, each refusal; the links context gives.
mod evaluate;
/// Clinical knowledge is data: no slug and no lexicon or cue phrase as a literal in the code.
mod knowledge_in_data;
/// Limits: failed key checks per client, and groundings weighed by their cost.
mod limits;
/// Parameters shared by many routes: calendar dates, bounded lists.
mod params;
/// Templates: ownership, voice-command uniqueness, partial updates, filters, paging.
mod templates;
/// Two versions of one guideline: diff and re-score, JSON and markdown, batches, refusals.
mod versions;
/// Webhooks and the deliveries consumer: signing, retries, leases, deactivation, idempotency.
mod webhooks;
