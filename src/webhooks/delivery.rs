//! The deliveries queue's consumer: one attempt of one delivery per message.
//!
//! A queue message carries only a delivery id. The delivery's state in D1 decides everything
//! else, so the consumer tracks the attempt number itself and a message that the queue hands
//! over twice cannot post the same attempt twice:
//!
//! 1. **Claim.** One conditional `UPDATE ... RETURNING` takes a lease on the delivery if it is
//!    pending, due, and not leased by another consumer. Only the claimant posts.
//! 2. **Post** the stored envelope, signed, with a 5-second limit and no redirects.
//! 3. **Record** the attempt (primary key `(delivery_id, attempt)`) and the delivery's new
//!    state in one atomic batch, and on the fifth failure deactivate the subscription and
//!    cancel its other pending deliveries in the same batch.
//! 4. **Dispose** of the message: ack when the delivery is finished, otherwise retry it with the
//!    delay of the next attempt.
//!
//! A message that cannot claim (a duplicate, or early) is retried for when the delivery could
//! next be due, and acked once the delivery is finished, so no message is dropped while the
//! delivery still needs it. If a consumer dies after claiming, its lease runs out and the
//! queue's redelivery of its message makes the attempt.

use crate::config::Config;
use crate::db::{int, opt_int, text, DbError, Statement};
use crate::services::{Outgoing, PostResult, QueueMessage, Services};
use crate::time::iso8601;
use serde_json::{json, Value};

/// How long a claim keeps other consumers off a delivery, in milliseconds: longer than the
/// post's time limit plus the time to record it.
pub const LEASE_MS: u64 = 30_000;
/// A message up to this early still makes its attempt (queue delays are not exact).
pub const EARLY_MS: u64 = 1_000;
/// A subscriber that has not answered after this long has failed the attempt.
pub const TIMEOUT_MS: u64 = 5_000;
/// How long to wait before retrying a message after a failure of our own (database, key).
pub const BACKOFF_SECS: u32 = 30;

/// What to do with a queue message once it has been processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// Done with: acknowledge it.
    Ack,
    /// Hand it back to the queue, to arrive again after this many seconds.
    Retry(u32),
}

/// The body of a deliveries-queue message.
pub fn message(delivery_id: &str) -> QueueMessage {
    QueueMessage {
        body: json!({ "delivery_id": delivery_id }),
        delay_secs: 0,
    }
}

fn secs_until(ms: u64) -> u32 {
    (ms.div_ceil(1000)).clamp(1, u64::from(crate::config::MAX_QUEUE_DELAY)) as u32
}

/// The queue delay, in seconds, of a message meant to arrive at `due` (epoch ms): none when it
/// is already due, at most the queue's longest delay.
pub fn delay_until(due: u64, now: u64) -> u32 {
    if due <= now {
        0
    } else {
        secs_until(due - now)
    }
}

/// Processes one message of the deliveries queue. Never fails: every outcome is a disposition.
pub async fn process<S: Services>(config: &Config, services: &S, body: &Value) -> Disposition {
    let Some(id) = body.get("delivery_id").and_then(Value::as_str) else {
        services.log("deliveries queue: a message without a delivery_id was dropped");
        return Disposition::Ack;
    };
    match attempt(config, services, id).await {
        Ok(disposition) => disposition,
        Err(err) => {
            let cause = match err {
                DbError::Unique => "attempt already recorded".to_string(),
                DbError::Other(cause) => cause,
            };
            services.log(&format!(
                "delivery {id}: {cause}; retrying in {BACKOFF_SECS}s"
            ));
            Disposition::Retry(BACKOFF_SECS)
        }
    }
}

async fn attempt<S: Services>(
    config: &Config,
    services: &S,
    id: &str,
) -> Result<Disposition, DbError> {
    let now = services.now_ms();
    let Some((made, event_id, webhook_id)) = claim(services, id, now).await? else {
        return unclaimed(services, id, now).await;
    };

    let rows = services
        .query(Statement::new(
            "SELECT e.type, e.body, w.url, w.secret_ciphertext, w.active, \
             w.previous_secret_ciphertext, w.previous_secret_expires_ms \
             FROM events e LEFT JOIN webhooks w ON w.id = ?2 WHERE e.id = ?1",
            vec![event_id.clone().into(), webhook_id.clone().into()],
        ))
        .await?;
    let target = rows.first();
    let active = target.and_then(|r| opt_int(r, "active")) == Some(1);
    if !active {
        // Deleted or deactivated since it was queued: this delivery stops here.
        services
            .batch(vec![Statement::new(
                "UPDATE deliveries SET state = 'cancelled', next_attempt_ms = NULL, \
                 claimed_ms = NULL, updated_at = ?2 WHERE id = ?1 AND state = 'pending'",
                vec![id.into(), iso8601(now).into()],
            )])
            .await?;
        return Ok(Disposition::Ack);
    }
    let target = target.expect("an active subscription has a row");
    let event_type = text(target, "type").unwrap_or_default();
    let body = text(target, "body").unwrap_or_default();
    let url = text(target, "url").unwrap_or_default();
    let secret = config.webhook_key.as_ref().and_then(|key| {
        super::seal::open(
            key,
            &webhook_id,
            &text(target, "secret_ciphertext").unwrap_or_default(),
        )
    });
    let Some(secret) = secret else {
        // A configuration fault of ours, not the subscriber's: no attempt is counted.
        services.log(&format!(
            "delivery {id}: the subscription's secret cannot be opened (WEBHOOK_SECRET_KEY missing or changed); retrying in {BACKOFF_SECS}s"
        ));
        release(services, id).await?;
        return Ok(Disposition::Retry(BACKOFF_SECS));
    };

    // Within a rotation's overlap the secret it replaced signs too, after the current one.
    let mut secrets = vec![secret];
    let overlap_ends = opt_int(target, "previous_secret_expires_ms").unwrap_or(0);
    if (now as i64) < overlap_ends {
        let previous = config.webhook_key.as_ref().and_then(|key| {
            super::seal::open(
                key,
                &webhook_id,
                &text(target, "previous_secret_ciphertext").unwrap_or_default(),
            )
        });
        secrets.extend(previous);
    }
    let number = made + 1;
    let timestamp = now / 1000;
    let headers = signed_headers(
        &secrets,
        &event_type,
        id,
        number,
        &event_id,
        timestamp,
        &body,
    );
    let result = services
        .post(Outgoing {
            url,
            headers,
            body: body.into_bytes(),
            timeout_ms: TIMEOUT_MS,
        })
        .await;
    let finished = services.now_ms();
    let (succeeded, status_code, error) = judge(result);
    let next_delay = if succeeded {
        None
    } else {
        super::next_delay(&config.retry_delays, number)
    };
    let next_ms = next_delay.map(|d| finished + u64::from(d) * 1000);
    let state = match (succeeded, next_delay) {
        (true, _) => "succeeded",
        (false, Some(_)) => "pending",
        (false, None) => "failed",
    };
    let attempt = Attempt {
        delivery_id: id,
        number,
        webhook_id: &webhook_id,
        event_id: &event_id,
        event_type,
        succeeded,
        status_code,
        error,
        started_ms: now,
        finished_ms: finished,
        next_ms,
        state,
    };
    let statements = record(services, &attempt, made);
    services.batch(statements).await?;
    Ok(match next_delay {
        Some(delay) if !succeeded => Disposition::Retry(delay.max(1)),
        _ => Disposition::Ack,
    })
}

/// Takes a lease on a delivery that is pending, due (or at most `EARLY_MS` early) and not
/// leased by a live consumer: its attempts so far, event and subscription; `None` when it
/// cannot be claimed now.
async fn claim<S: Services>(
    services: &S,
    id: &str,
    now: u64,
) -> Result<Option<(u32, String, String)>, DbError> {
    let claimed = services
        .query(Statement::new(
            "UPDATE deliveries SET claimed_ms = ?2 \
             WHERE id = ?1 AND state = 'pending' AND next_attempt_ms <= ?3 \
             AND (claimed_ms IS NULL OR claimed_ms <= ?4) \
             RETURNING attempts, event_id, webhook_id",
            vec![
                id.into(),
                (now as i64).into(),
                ((now + EARLY_MS) as i64).into(),
                (now.saturating_sub(LEASE_MS) as i64).into(),
            ],
        ))
        .await?;
    Ok(claimed.first().map(|c| {
        (
            int(c, "attempts") as u32,
            text(c, "event_id").unwrap_or_default(),
            text(c, "webhook_id").unwrap_or_default(),
        )
    }))
}

/// The headers of one attempt: radref's signature over the body, and the Standard Webhooks
/// id, timestamp and signature, so receivers can verify either way. Each signature header
/// holds one signature per active secret, space-separated, the current secret's first.
fn signed_headers(
    secrets: &[String],
    event_type: &str,
    id: &str,
    number: u32,
    event_id: &str,
    timestamp: u64,
    body: &str,
) -> Vec<(String, String)> {
    vec![
        ("content-type".into(), "application/json".into()),
        (
            "user-agent".into(),
            format!("radref-webhooks/{}", env!("CARGO_PKG_VERSION")),
        ),
        (
            "x-radref-signature".into(),
            secrets
                .iter()
                .map(|s| super::signature(s.as_bytes(), body.as_bytes()))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        ("x-radref-event".into(), event_type.to_string()),
        ("x-radref-delivery".into(), id.to_string()),
        ("x-radref-attempt".into(), number.to_string()),
        ("webhook-id".into(), event_id.to_string()),
        ("webhook-timestamp".into(), timestamp.to_string()),
        (
            "webhook-signature".into(),
            secrets
                .iter()
                .map(|s| {
                    super::standard_signature(s.as_bytes(), event_id, timestamp, body.as_bytes())
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
    ]
}

/// Whether an attempt succeeded, the subscriber's status if it answered, and what went wrong.
fn judge(result: PostResult) -> (bool, Option<u16>, Option<String>) {
    match result {
        PostResult::Status(code) if (200..300).contains(&code) => (true, Some(code), None),
        PostResult::Status(code) => (
            false,
            Some(code),
            Some(if (300..400).contains(&code) {
                format!("HTTP {code}: redirects are not followed")
            } else {
                format!("HTTP {code}")
            }),
        ),
        PostResult::Failed(reason) => (false, None, Some(reason)),
        PostResult::TimedOut => (
            false,
            None,
            Some(format!("no answer within {} seconds", TIMEOUT_MS / 1000)),
        ),
    }
}

/// One attempt, as it is recorded.
struct Attempt<'a> {
    delivery_id: &'a str,
    number: u32,
    webhook_id: &'a str,
    event_id: &'a str,
    event_type: String,
    succeeded: bool,
    status_code: Option<u16>,
    error: Option<String>,
    started_ms: u64,
    finished_ms: u64,
    next_ms: Option<u64>,
    /// The delivery's state after it: succeeded, pending (a retry is due) or failed.
    state: &'static str,
}

/// The statements that record an attempt and advance its delivery (only if no other consumer
/// recorded attempt `made + 1` first); after the last failed attempt they also deactivate the
/// subscription and cancel its other pending deliveries.
fn record<S: Services>(services: &S, a: &Attempt<'_>, made: u32) -> Vec<Statement> {
    let (id, number, webhook_id) = (a.delivery_id, a.number, a.webhook_id);
    let stamp = iso8601(a.finished_ms);
    let mut statements = vec![
        Statement::new(
            "INSERT INTO attempts (delivery_id, attempt, webhook_id, event_id, type, outcome, \
             status_code, duration_ms, error, attempted_at, attempted_ms, next_attempt_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            vec![
                id.into(),
                i64::from(number).into(),
                webhook_id.into(),
                a.event_id.into(),
                a.event_type.clone().into(),
                if a.succeeded { "succeeded" } else { "failed" }.into(),
                a.status_code.map(i64::from).into(),
                (a.finished_ms.saturating_sub(a.started_ms) as i64).into(),
                a.error.clone().into(),
                iso8601(a.started_ms).into(),
                (a.started_ms as i64).into(),
                a.next_ms.map(iso8601).into(),
            ],
        ),
        Statement::new(
            "UPDATE deliveries SET attempts = ?2, state = ?3, next_attempt_ms = ?4, \
             claimed_ms = NULL, updated_at = ?5 WHERE id = ?1 AND attempts = ?6",
            vec![
                id.into(),
                i64::from(number).into(),
                a.state.into(),
                a.next_ms.map(|ms| ms as i64).into(),
                stamp.clone().into(),
                i64::from(made).into(),
            ],
        ),
    ];
    if a.state == "failed" {
        statements.push(Statement::new(
            "UPDATE webhooks SET active = 0, deactivated_at = ?2, \
             deactivated_reason = 'delivery_failures', updated_at = ?2 \
             WHERE id = ?1 AND active = 1",
            vec![webhook_id.into(), stamp.clone().into()],
        ));
        statements.push(cancel_pending(webhook_id, a.finished_ms));
        services.log(&format!(
            "webhook {webhook_id}: delivery {id} failed {number} times; the subscription is now inactive"
        ));
    }
    statements
}

/// Cancels a subscription's pending deliveries (it was deactivated). A delivery that a live
/// consumer holds finishes its attempt and is cancelled by its next message; a claim whose
/// lease ran out (its consumer died) holds nothing back.
pub fn cancel_pending(webhook_id: &str, now: u64) -> Statement {
    Statement::new(
        "UPDATE deliveries SET state = 'cancelled', next_attempt_ms = NULL, claimed_ms = NULL, \
         updated_at = ?2 WHERE webhook_id = ?1 AND state = 'pending' \
         AND (claimed_ms IS NULL OR claimed_ms <= ?3)",
        vec![
            webhook_id.into(),
            iso8601(now).into(),
            (now.saturating_sub(LEASE_MS) as i64).into(),
        ],
    )
}

/// Gives up a claim without making an attempt.
async fn release<S: Services>(services: &S, id: &str) -> Result<(), DbError> {
    services
        .batch(vec![Statement::new(
            "UPDATE deliveries SET claimed_ms = NULL WHERE id = ?1",
            vec![id.into()],
        )])
        .await
}

/// Why a message could not claim its delivery, and what to do with it.
async fn unclaimed<S: Services>(services: &S, id: &str, now: u64) -> Result<Disposition, DbError> {
    let rows = services
        .query(Statement::new(
            "SELECT state, next_attempt_ms, claimed_ms FROM deliveries WHERE id = ?1",
            vec![id.into()],
        ))
        .await?;
    let Some(row) = rows.first() else {
        // The subscription was deleted (its deliveries with it).
        return Ok(Disposition::Ack);
    };
    if text(row, "state").as_deref() != Some("pending") {
        return Ok(Disposition::Ack);
    }
    let lease_end = opt_int(row, "claimed_ms").map_or(0, |c| c.max(0) as u64 + LEASE_MS);
    let due = opt_int(row, "next_attempt_ms").map_or(0, |n| n.max(0) as u64);
    // Another consumer holds it, or it is not due yet: come back when it could be.
    let wait = lease_end.max(due).saturating_sub(now);
    Ok(Disposition::Retry(secs_until(wait)))
}
