//! Keeping the webhook tables bounded: a daily sweep (a Cron Trigger) deletes what has finished
//! and is older than the retention period. Pending deliveries, and the attempts and events they
//! need, are never touched, so a sweep cannot lose or cut short a delivery.

use crate::config::Config;
use crate::db::{int, DbError, SqlValue, Statement};
use crate::services::Services;
use crate::time::iso8601;

/// The Cron Trigger of the daily sweep (declared in `wrangler.toml`; a test keeps the two in
/// step): 03:17 UTC.
pub const CRON: &str = "17 3 * * *";

/// What one sweep removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub attempts: i64,
    pub deliveries: i64,
    pub events: i64,
}

/// Attempts of finished deliveries, made before the cutoff (`?1`, epoch ms).
const ATTEMPTS: &str = "FROM attempts WHERE attempted_ms < ?1 AND delivery_id IN \
    (SELECT id FROM deliveries WHERE state <> 'pending')";
/// Finished deliveries last changed before the cutoff (`?1`, ISO 8601) with no attempt left.
const DELIVERIES: &str = "FROM deliveries WHERE state <> 'pending' AND updated_at < ?1 \
    AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = deliveries.id)";
/// Events published before the cutoff (`?1`, ISO 8601) with no delivery left.
const EVENTS: &str = "FROM events WHERE created_at < ?1 \
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)";

/// Deletes attempts, deliveries and events older than `config.retention_days` whose deliveries
/// have finished (succeeded, failed or cancelled). Each step deletes children before parents and
/// is safe on its own, so a sweep cut short is completed by the next one. Events published with
/// an idempotency key lose it with the event.
pub async fn sweep<S: Services>(config: &Config, services: &S) -> Result<Swept, DbError> {
    let cutoff_ms = services
        .now_ms()
        .saturating_sub(u64::from(config.retention_days) * 86_400_000);
    let cutoff = iso8601(cutoff_ms);
    let mut swept = Swept::default();
    for (from, param, slot) in [
        (
            ATTEMPTS,
            SqlValue::Int(cutoff_ms as i64),
            &mut swept.attempts,
        ),
        (
            DELIVERIES,
            SqlValue::Text(cutoff.clone()),
            &mut swept.deliveries,
        ),
        (EVENTS, SqlValue::Text(cutoff.clone()), &mut swept.events),
    ] {
        let rows = services
            .query(Statement::new(
                format!("SELECT COUNT(*) AS n {from}"),
                vec![param.clone()],
            ))
            .await?;
        *slot = rows.first().map(|r| int(r, "n")).unwrap_or(0);
        if *slot > 0 {
            services
                .batch(vec![Statement::new(format!("DELETE {from}"), vec![param])])
                .await?;
        }
    }
    Ok(swept)
}
