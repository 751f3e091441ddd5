//! Recovering deliveries whose queue message was lost.
//!
//! D1 is the record of what must still be delivered; a queue message is only the reminder
//! that wakes the consumer. A reminder can be lost: the runtime restarts with messages in
//! flight (local queues live in memory), a consumer dies mid-attempt, or a message exhausts
//! its retries and lands in the dead-letter queue. Two paths bring such a delivery back:
//!
//! - **The sweep** (a Cron Trigger every few minutes) queues a new message for every delivery
//!   that is pending, was due at least a lease ago, and is not held by a live claim.
//! - **The dead-letter consumer** sends a dead-lettered message back to the deliveries queue
//!   while its delivery is still pending, to arrive when the delivery is due.
//!
//! A message queued for a delivery that still had one is harmless: the consumer's claim lets
//! only one of them make each attempt, and the other is acked once the delivery finishes.

use super::delivery::{self, Disposition, BACKOFF_SECS, LEASE_MS};
use crate::db::{opt_int, text, DbError, Statement};
use crate::services::{QueueMessage, Services};
use serde_json::Value;

/// The Cron Trigger that runs the sweep (declared in `wrangler.toml`; a test keeps the two in
/// step). Every scheduled event runs the sweep; this one exists for it.
pub const CRON: &str = "*/2 * * * *";

/// Most deliveries one sweep queues again; a larger backlog is finished by the next sweeps,
/// oldest first.
pub const MAX_PER_SWEEP: usize = 500;

/// Why a sweep stopped early.
#[derive(Debug)]
pub enum SweepError {
    /// Reading the stranded deliveries failed.
    Database(DbError),
    /// The queue refused the messages; the next sweep tries again.
    Queue(String),
}

/// The condition of a stranded delivery, with `?1` the cutoff: now minus the lease.
const STRANDED: &str = "state = 'pending' AND next_attempt_ms <= ?1 \
    AND (claimed_ms IS NULL OR claimed_ms <= ?1)";

/// Queues a message for each stranded delivery (at most [`MAX_PER_SWEEP`]); returns how many.
pub async fn sweep<S: Services>(services: &S) -> Result<usize, SweepError> {
    let cutoff = services.now_ms().saturating_sub(LEASE_MS) as i64;
    let rows = services
        .query(Statement::new(
            format!("SELECT id FROM deliveries WHERE {STRANDED} ORDER BY next_attempt_ms LIMIT ?2"),
            vec![cutoff.into(), (MAX_PER_SWEEP as i64).into()],
        ))
        .await
        .map_err(SweepError::Database)?;
    let messages: Vec<QueueMessage> = rows
        .iter()
        .filter_map(|row| text(row, "id"))
        .map(|id| delivery::message(&id))
        .collect();
    let count = messages.len();
    if count > 0 {
        services
            .enqueue(messages)
            .await
            .map_err(SweepError::Queue)?;
    }
    Ok(count)
}

/// Queues a message for the pending delivery of `event_id` to `webhook_id` if it is stranded.
/// Returns whether it was: a redeliver then has nothing to wait for.
pub async fn requeue_if_stranded<S: Services>(
    services: &S,
    webhook_id: &str,
    event_id: &str,
) -> Result<bool, DbError> {
    let cutoff = services.now_ms().saturating_sub(LEASE_MS) as i64;
    let rows = services
        .query(Statement::new(
            format!(
                "SELECT id FROM deliveries WHERE webhook_id = ?2 AND event_id = ?3 AND {STRANDED}"
            ),
            vec![cutoff.into(), webhook_id.into(), event_id.into()],
        ))
        .await?;
    let Some(id) = rows.first().and_then(|row| text(row, "id")) else {
        return Ok(false);
    };
    services
        .enqueue(vec![delivery::message(&id)])
        .await
        .map_err(DbError::Other)?;
    Ok(true)
}

/// Handles one message of the dead-letter queue: while its delivery is pending, a new message
/// goes to the deliveries queue, due when the delivery is; otherwise it is dropped.
pub async fn revive<S: Services>(services: &S, body: &Value) -> Disposition {
    let Some(id) = body.get("delivery_id").and_then(Value::as_str) else {
        services.log("dead-letter queue: a message without a delivery_id was dropped");
        return Disposition::Ack;
    };
    let rows = match services
        .query(Statement::new(
            "SELECT state, next_attempt_ms FROM deliveries WHERE id = ?1",
            vec![id.into()],
        ))
        .await
    {
        Ok(rows) => rows,
        Err(err) => {
            services.log(&format!(
                "dead-letter queue: delivery {id}: {err:?}; retrying in {BACKOFF_SECS}s"
            ));
            return Disposition::Retry(BACKOFF_SECS);
        }
    };
    let Some(row) = rows.first() else {
        return Disposition::Ack;
    };
    if text(row, "state").as_deref() != Some("pending") {
        return Disposition::Ack;
    }
    let due = opt_int(row, "next_attempt_ms").map_or(0, |n| n.max(0) as u64);
    let mut message = delivery::message(id);
    message.delay_secs = delivery::delay_until(due, services.now_ms());
    match services.enqueue(vec![message]).await {
        Ok(()) => {
            services.log(&format!(
                "dead-letter queue: delivery {id} is still pending; queued again"
            ));
            Disposition::Ack
        }
        Err(cause) => {
            services.log(&format!(
                "dead-letter queue: delivery {id}: {cause}; retrying in {BACKOFF_SECS}s"
            ));
            Disposition::Retry(BACKOFF_SECS)
        }
    }
}
