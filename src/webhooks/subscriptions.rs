//! Webhook subscriptions: their rules and their SQL. A subscription belongs to one user; its
//! secret is stored sealed under `WEBHOOK_SECRET_KEY` and never returned. The handlers
//! (`api::webhooks`) read the request and shape the answer.

use super::delivery::cancel_pending;
use super::publish::{publish, queue_deliveries, sample_data, EventData, Published, Targets};
use super::recovery;
use super::{
    check_events, check_secret, check_url, seal, Invalid, DEFAULT_OVERLAP_HOURS, MAX_OVERLAP_HOURS,
};
use crate::call::Principal;
use crate::config::{Config, SecretKey};
use crate::db::{int, opt_int, string_list, text, Row, SqlValue, Statement};
use crate::error::ApiError;
use crate::services::Services;
use crate::time::iso8601;
use serde_json::{json, Map, Value};

/// Most subscriptions one user may hold.
pub const MAX_WEBHOOKS_PER_USER: i64 = 50;
/// Fields a subscription body may carry: on create, and on update.
pub const CREATE_FIELDS: &[&str] = &["url", "events", "secret"];
pub const UPDATE_FIELDS: &[&str] = &["url", "events", "secret", "active"];
pub const ROTATE_FIELDS: &[&str] = &["overlap_hours"];

/// A subscription as stored (without its sealed secret).
#[derive(Clone, Debug, PartialEq)]
pub struct Webhook {
    pub id: String,
    pub user_id: String,
    pub url: String,
    pub events: Vec<String>,
    pub active: bool,
    pub deactivated_at: Option<String>,
    pub deactivated_reason: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Until when the secret the last rotation replaced still signs (milliseconds).
    pub previous_secret_expires_ms: Option<i64>,
}

const COLUMNS: &str = "id, user_id, url, events, active, deactivated_at, deactivated_reason, \
     created_at, updated_at, previous_secret_expires_ms";

impl Webhook {
    fn from_row(row: &Row) -> Webhook {
        Webhook {
            id: text(row, "id").unwrap_or_default(),
            user_id: text(row, "user_id").unwrap_or_default(),
            url: text(row, "url").unwrap_or_default(),
            events: string_list(row, "events"),
            active: int(row, "active") == 1,
            deactivated_at: text(row, "deactivated_at"),
            deactivated_reason: text(row, "deactivated_reason"),
            created_at: text(row, "created_at").unwrap_or_default(),
            updated_at: text(row, "updated_at").unwrap_or_default(),
            previous_secret_expires_ms: crate::db::opt_int(row, "previous_secret_expires_ms"),
        }
    }

    /// The subscription as the API shows it (never its secret).
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "url": self.url,
            "events": self.events,
            "active": self.active,
            "deactivated_at": self.deactivated_at,
            "deactivated_reason": self.deactivated_reason,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "previous_secret_expires_at": self
                .previous_secret_expires_ms
                .map(|ms| iso8601(ms.max(0) as u64)),
        })
    }
}

fn rejected(e: Invalid) -> ApiError {
    ApiError::validation(e.field, e.reason)
}

/// The subscription if it is the caller's: 404 when there is none, 403 when it is another
/// user's.
pub async fn owned<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
) -> Result<Webhook, ApiError> {
    let not_found = || {
        ApiError::not_found(format!(
            "no webhook '{}'",
            id.chars().take(64).collect::<String>()
        ))
    };
    if !id.starts_with("wh_") || id.len() > 64 {
        return Err(not_found());
    }
    let rows = services
        .query(Statement::new(
            format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1"),
            vec![id.into()],
        ))
        .await?;
    let w = rows.first().map(Webhook::from_row).ok_or_else(not_found)?;
    if w.user_id != who.user_id {
        return Err(ApiError::Forbidden {
            message: "this webhook belongs to another user".into(),
        });
    }
    Ok(w)
}

/// The key that seals secrets, or 503 when the deployment has none.
fn sealing_key(config: &Config) -> Result<&SecretKey, ApiError> {
    config
        .webhook_key
        .as_ref()
        .ok_or_else(|| ApiError::Unavailable {
            cause: "WEBHOOK_SECRET_KEY is not set (64 hex digits, a Worker secret)".into(),
        })
}

fn sealed_secret<S: Services>(
    config: &Config,
    services: &S,
    id: &str,
    secret: &str,
) -> Result<String, ApiError> {
    let key = sealing_key(config)?;
    let nonce = services.random_hex(24)?;
    seal::seal(key, id, secret, &nonce).ok_or_else(|| ApiError::internal("sealing failed"))
}

fn string_value<'a>(
    map: &'a Map<String, Value>,
    key: &'static str,
) -> Result<Option<&'a str>, ApiError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::validation(
            key,
            format!("'{key}' must be a string"),
        )),
    }
}

fn events_value(map: &Map<String, Value>) -> Result<Option<Vec<String>>, ApiError> {
    match map.get("events") {
        None => Ok(None),
        Some(Value::Array(items)) => {
            let names = items
                .iter()
                .map(|v| v.as_str().map(String::from))
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| {
                    ApiError::validation("events", "'events' must be an array of strings")
                })?;
            check_events(&names).map(Some).map_err(rejected)
        }
        Some(_) => Err(ApiError::validation(
            "events",
            "'events' must be an array of strings",
        )),
    }
}

/// Subscribes a URL of the caller's to event types.
pub async fn create<S: Services>(
    config: &Config,
    services: &S,
    who: &Principal,
    fields: &Map<String, Value>,
) -> Result<Webhook, ApiError> {
    let url = string_value(fields, "url")?
        .ok_or_else(|| ApiError::validation("url", "'url' is required"))?;
    let url = check_url(url, config.allow_http_loopback).map_err(rejected)?;
    let events = events_value(fields)?
        .ok_or_else(|| ApiError::validation("events", "'events' is required"))?;
    let secret = string_value(fields, "secret")?
        .ok_or_else(|| ApiError::validation("secret", "'secret' is required"))?;
    check_secret(secret).map_err(rejected)?;
    if count(services, who).await? >= MAX_WEBHOOKS_PER_USER {
        return Err(ApiError::Conflict {
            message: format!(
                "a user may hold at most {MAX_WEBHOOKS_PER_USER} webhooks; delete one first"
            ),
            field: "url".into(),
            existing_id: None,
        });
    }
    let now = iso8601(services.now_ms());
    let w = Webhook {
        id: format!("wh_{}", services.random_hex(12)?),
        user_id: who.user_id.clone(),
        url,
        events,
        active: true,
        deactivated_at: None,
        deactivated_reason: None,
        created_at: now.clone(),
        updated_at: now,
        previous_secret_expires_ms: None,
    };
    let sealed = sealed_secret(config, services, &w.id, secret)?;
    services
        .batch(vec![Statement::new(
            "INSERT INTO webhooks (id, user_id, url, events, secret_ciphertext, active, \
             created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?6)",
            vec![
                w.id.clone().into(),
                w.user_id.clone().into(),
                w.url.clone().into(),
                json!(w.events).to_string().into(),
                sealed.into(),
                w.created_at.clone().into(),
            ],
        )])
        .await?;
    Ok(w)
}

async fn count<S: Services>(services: &S, who: &Principal) -> Result<i64, ApiError> {
    Ok(services
        .query(Statement::new(
            "SELECT COUNT(*) AS n FROM webhooks WHERE user_id = ?1",
            vec![who.user_id.clone().into()],
        ))
        .await?
        .first()
        .map(|r| int(r, "n"))
        .unwrap_or(0))
}

/// A page of the caller's subscriptions, newest first, and how many they hold.
pub async fn list<S: Services>(
    services: &S,
    who: &Principal,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Webhook>, i64), ApiError> {
    let total = count(services, who).await?;
    let rows = services
        .query(Statement::new(
            format!(
                "SELECT {COLUMNS} FROM webhooks WHERE user_id = ?1 \
                 ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
            ),
            vec![who.user_id.clone().into(), limit.into(), offset.into()],
        ))
        .await?;
    Ok((rows.iter().map(Webhook::from_row).collect(), total))
}

/// Changes a subscription's url, events, secret or active flag. Pausing it cancels its pending
/// deliveries; reactivating it clears the reason it stopped.
pub async fn update<S: Services>(
    config: &Config,
    services: &S,
    who: &Principal,
    id: &str,
    fields: &Map<String, Value>,
) -> Result<Webhook, ApiError> {
    let mut w = owned(services, who, id).await?;
    if let Some(url) = string_value(fields, "url")? {
        w.url = check_url(url, config.allow_http_loopback).map_err(rejected)?;
    }
    if let Some(events) = events_value(fields)? {
        w.events = events;
    }
    let secret = match string_value(fields, "secret")? {
        Some(secret) => {
            check_secret(secret).map_err(rejected)?;
            Some(sealed_secret(config, services, &w.id, secret)?)
        }
        None => None,
    };
    let active = match fields.get("active") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            return Err(ApiError::validation(
                "active",
                "'active' must be true or false",
            ))
        }
    };
    let now_ms = services.now_ms();
    let now = iso8601(now_ms);
    let mut writes = vec![];
    match active {
        Some(true) if !w.active => {
            w.active = true;
            w.deactivated_at = None;
            w.deactivated_reason = None;
        }
        Some(false) if w.active => {
            w.active = false;
            w.deactivated_at = Some(now.clone());
            w.deactivated_reason = Some("by_request".into());
            writes.push(cancel_pending(&w.id, now_ms));
        }
        _ => {}
    }
    w.updated_at = now;
    writes.insert(0, save(&w, who, secret));
    services.batch(writes).await?;
    Ok(w)
}

/// The statement that stores a subscription's fields (and a new sealed secret, if any).
fn save(w: &Webhook, who: &Principal, sealed_secret: Option<String>) -> Statement {
    Statement::new(
        "UPDATE webhooks SET url = ?2, events = ?3, \
         secret_ciphertext = COALESCE(?4, secret_ciphertext), active = ?5, \
         deactivated_at = ?6, deactivated_reason = ?7, updated_at = ?8 \
         WHERE id = ?1 AND user_id = ?9",
        vec![
            w.id.clone().into(),
            w.url.clone().into(),
            json!(w.events).to_string().into(),
            sealed_secret.into(),
            w.active.into(),
            w.deactivated_at.clone().into(),
            w.deactivated_reason.clone().into(),
            w.updated_at.clone().into(),
            who.user_id.clone().into(),
        ],
    )
}

/// Replaces a subscription's secret with a new one made here and returned once. The secret it
/// replaces goes on signing, beside the new one, for `overlap_hours` (default
/// [`DEFAULT_OVERLAP_HOURS`], at most [`MAX_OVERLAP_HOURS`]; 0 ends it at once), so a
/// subscriber can switch without missing a delivery. A rotation during an overlap drops the
/// oldest secret: at most two sign.
pub async fn rotate<S: Services>(
    config: &Config,
    services: &S,
    who: &Principal,
    id: &str,
    fields: &Map<String, Value>,
) -> Result<(Webhook, String), ApiError> {
    let mut w = owned(services, who, id).await?;
    let about = format!(
        "'overlap_hours' must be an integer from 0 to {MAX_OVERLAP_HOURS} (default {DEFAULT_OVERLAP_HOURS})"
    );
    let hours = match fields.get("overlap_hours") {
        None | Some(Value::Null) => DEFAULT_OVERLAP_HOURS,
        // An integral number however written (24, 24.0), as JSON Schema's integer has it.
        Some(Value::Number(n)) => crate::input::integral(n)
            .and_then(|h| u64::try_from(h).ok())
            .filter(|h| *h <= MAX_OVERLAP_HOURS)
            .ok_or_else(|| ApiError::validation("overlap_hours", about.clone()))?,
        Some(_) => return Err(ApiError::validation("overlap_hours", about)),
    };
    let secret = services.random_hex(24)?;
    let sealed = sealed_secret(config, services, &w.id, &secret)?;
    let now = services.now_ms();
    let until = (now + hours * 3_600_000) as i64;
    w.updated_at = iso8601(now);
    w.previous_secret_expires_ms = (hours > 0).then_some(until);
    // SQLite reads every right-hand side from the row as it was: the replaced secret is the
    // one stored before this statement.
    services
        .batch(vec![Statement::new(
            "UPDATE webhooks SET \
             previous_secret_ciphertext = CASE WHEN ?3 IS NULL THEN NULL ELSE secret_ciphertext END, \
             previous_secret_expires_ms = ?3, secret_ciphertext = ?2, updated_at = ?4 \
             WHERE id = ?1 AND user_id = ?5",
            vec![
                w.id.clone().into(),
                sealed.into(),
                w.previous_secret_expires_ms.into(),
                w.updated_at.clone().into(),
                who.user_id.clone().into(),
            ],
        )])
        .await?;
    Ok((w, secret))
}

/// Deletes a subscription with its deliveries and attempt log.
pub async fn delete<S: Services>(services: &S, who: &Principal, id: &str) -> Result<(), ApiError> {
    let w = owned(services, who, id).await?;
    let by_webhook = |sql: &str| Statement::new(sql, vec![w.id.clone().into()]);
    services
        .batch(vec![
            by_webhook("DELETE FROM attempts WHERE webhook_id = ?1"),
            by_webhook("DELETE FROM deliveries WHERE webhook_id = ?1"),
            by_webhook("DELETE FROM webhooks WHERE id = ?1"),
        ])
        .await?;
    Ok(())
}

/// Sends a sample event of `event_type` to one active subscription of the caller's.
pub async fn test<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
    event_type: &str,
) -> Result<(Webhook, Published), ApiError> {
    let w = owned(services, who, id).await?;
    inactive_conflict(&w)?;
    let sample = EventData::from_value(&sample_data(event_type, &services.random_hex(6)?));
    let published = publish(
        services,
        &who.user_id,
        event_type,
        &sample,
        Targets::Only(&w.id),
        None,
    )
    .await?;
    Ok((w, published))
}

/// A page of a subscription's attempt log, newest first (of one event, when given), and the
/// number of all its attempts.
pub async fn attempts<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
    event_id: Option<String>,
    (limit, offset): (i64, i64),
) -> Result<(Vec<Value>, i64), ApiError> {
    let w = owned(services, who, id).await?;
    let mut params: Vec<SqlValue> = vec![w.id.clone().into()];
    let mut filter = String::from("webhook_id = ?1");
    if let Some(event) = event_id {
        params.push(event.into());
        filter.push_str(" AND event_id = ?2");
    }
    let total = services
        .query(Statement::new(
            format!("SELECT COUNT(*) AS n FROM attempts WHERE {filter}"),
            params.clone(),
        ))
        .await?
        .first()
        .map(|r| int(r, "n"))
        .unwrap_or(0);
    let n = params.len();
    params.push(limit.into());
    params.push(offset.into());
    let rows = services
        .query(Statement::new(
            format!(
                "SELECT delivery_id, attempt, event_id, type, outcome, status_code, \
                 duration_ms, error, attempted_at, next_attempt_at FROM attempts \
                 WHERE {filter} ORDER BY attempted_ms DESC, attempt DESC, delivery_id \
                 LIMIT ?{} OFFSET ?{}",
                n + 1,
                n + 2
            ),
            params,
        ))
        .await?;
    Ok((rows.iter().map(attempt_json).collect(), total))
}

/// Sends an event that was delivered to a subscription again, unless a delivery of it is
/// still pending (409).
pub async fn redeliver<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
    event_id: &str,
) -> Result<Webhook, ApiError> {
    let w = owned(services, who, id).await?;
    inactive_conflict(&w)?;
    let rows = services
        .query(Statement::new(
            "SELECT state FROM deliveries WHERE webhook_id = ?1 AND event_id = ?2",
            vec![w.id.clone().into(), event_id.into()],
        ))
        .await?;
    if rows.is_empty() {
        return Err(ApiError::not_found(format!(
            "webhook {} has no delivery of event '{}'",
            w.id,
            event_id.chars().take(64).collect::<String>()
        )));
    }
    // At most one pending delivery per webhook and event: the partial unique index decides
    // between concurrent redelivers, not a read before the write.
    let in_progress = || ApiError::Conflict {
        message: "a delivery of this event to this webhook is still in progress".into(),
        field: "event_id".into(),
        existing_id: None,
    };
    let now = services.now_ms();
    let targets = std::slice::from_ref(&w.id);
    match queue_deliveries(services, None, event_id, targets, now, in_progress).await {
        // The pending delivery's queue message was lost (a restart, a dead consumer): it is
        // queued again now rather than left to the next recovery sweep.
        Err(conflict @ ApiError::Conflict { .. }) => {
            if recovery::requeue_if_stranded(services, &w.id, event_id).await? {
                Ok(w)
            } else {
                Err(conflict)
            }
        }
        Err(other) => Err(other),
        Ok(_) => Ok(w),
    }
}

pub fn inactive_conflict(w: &Webhook) -> Result<(), ApiError> {
    if w.active {
        return Ok(());
    }
    Err(ApiError::Conflict {
        message: "this webhook is inactive; set active to true (PATCH) to reactivate it first"
            .into(),
        field: "active".into(),
        existing_id: None,
    })
}

pub fn attempt_json(row: &Row) -> Value {
    json!({
        "delivery_id": text(row, "delivery_id"),
        "event_id": text(row, "event_id"),
        "type": text(row, "type"),
        "attempt": int(row, "attempt"),
        "outcome": text(row, "outcome"),
        "status_code": opt_int(row, "status_code"),
        "duration_ms": int(row, "duration_ms"),
        "error": text(row, "error"),
        "attempted_at": text(row, "attempted_at"),
        "next_attempt_at": text(row, "next_attempt_at"),
    })
}
