//! The webhook routes: subscriptions (`/api/v1/webhooks...`, the `webhooks` scope) and
//! publishing events (`POST /api/v1/events`, the `events:publish` scope).
//!
//! Publishing writes the event (its envelope as the exact bytes every attempt will post) and one
//! pending delivery per matching active subscription of the publisher in one atomic batch, then
//! queues one message per delivery. If the queue refuses, the rows are removed again and the
//! call fails, so an event is either published and queued or not published at all.

use super::delivery::{self, cancel_pending};
use super::{check_events, check_secret, check_url, seal, Invalid, EVENT_TYPES};
use crate::app::{App, Services};
use crate::auth::{keyed, Principal, Scope};
use crate::db::{int, list, opt_int, text, DbError, Row, SqlValue, Statement};
use crate::error::ApiError;
use crate::http::{Method, Request, Response};
use crate::templates::{iso8601, page, paging};
use serde_json::{json, Map, Value};

/// Largest body of a subscription write or an event, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Most subscriptions one user may hold.
pub const MAX_WEBHOOKS_PER_USER: i64 = 50;
/// Longest string in an event's `data` that the interface names, in characters.
pub const MAX_DATA_STRING_CHARS: usize = 200;

/// The routes under `/api/v1/webhooks`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WebhookRoute {
    /// `GET|POST /webhooks`
    Collection,
    /// `GET|PATCH|DELETE /webhooks/{id}`
    Item(String),
    /// `POST /webhooks/{id}/test`
    Test(String),
    /// `GET /webhooks/{id}/deliveries`
    Deliveries(String),
    /// `POST /webhooks/{id}/deliveries/{event_id}/redeliver`
    Redeliver(String, String),
}

impl WebhookRoute {
    /// Resolves the part of a path after `/api/v1/webhooks`.
    pub fn resolve(rest: &[&str]) -> Option<WebhookRoute> {
        let route = match rest {
            [] => WebhookRoute::Collection,
            [id] if !id.is_empty() => WebhookRoute::Item(id.to_string()),
            [id, "test"] if !id.is_empty() => WebhookRoute::Test(id.to_string()),
            [id, "deliveries"] if !id.is_empty() => WebhookRoute::Deliveries(id.to_string()),
            [id, "deliveries", event, "redeliver"] if !id.is_empty() && !event.is_empty() => {
                WebhookRoute::Redeliver(id.to_string(), event.to_string())
            }
            _ => return None,
        };
        Some(route)
    }

    /// The methods the route answers.
    pub fn allow(&self) -> &'static [Method] {
        match self {
            WebhookRoute::Collection => &[Method::Get, Method::Head, Method::Post],
            WebhookRoute::Item(_) => &[Method::Get, Method::Head, Method::Patch, Method::Delete],
            WebhookRoute::Test(_) | WebhookRoute::Redeliver(..) => &[Method::Post],
            WebhookRoute::Deliveries(_) => &[Method::Get, Method::Head],
        }
    }
}

/// A subscription as stored (without its sealed secret).
#[derive(Clone, Debug, PartialEq)]
struct Webhook {
    id: String,
    user_id: String,
    url: String,
    events: Vec<String>,
    active: bool,
    deactivated_at: Option<String>,
    deactivated_reason: Option<String>,
    created_at: String,
    updated_at: String,
}

const COLUMNS: &str =
    "id, user_id, url, events, active, deactivated_at, deactivated_reason, created_at, updated_at";

impl Webhook {
    fn from_row(row: &Row) -> Webhook {
        Webhook {
            id: text(row, "id").unwrap_or_default(),
            user_id: text(row, "user_id").unwrap_or_default(),
            url: text(row, "url").unwrap_or_default(),
            events: list(row, "events"),
            active: int(row, "active") == 1,
            deactivated_at: text(row, "deactivated_at"),
            deactivated_reason: text(row, "deactivated_reason"),
            created_at: text(row, "created_at").unwrap_or_default(),
            updated_at: text(row, "updated_at").unwrap_or_default(),
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "url": self.url,
            "events": self.events,
            "active": self.active,
            "deactivated_at": self.deactivated_at,
            "deactivated_reason": self.deactivated_reason,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        })
    }
}

fn data(status: u16, w: &Webhook) -> Response {
    Response::json(status, &json!({ "data": w.to_json() }))
}

fn rejected(e: Invalid) -> ApiError {
    ApiError::validation(e.field, e.reason)
}

/// Handles a subscription route.
pub async fn handle<S: Services>(
    app: &App,
    services: &S,
    route: &WebhookRoute,
    request: &Request,
) -> Result<Response, ApiError> {
    keyed(app, services, request, Scope::Webhooks, async |who| {
        operate(app, services, &who, route, request).await
    })
    .await
}

/// Handles `POST /api/v1/events`.
pub async fn handle_events<S: Services>(
    app: &App,
    services: &S,
    request: &Request,
) -> Result<Response, ApiError> {
    keyed(app, services, request, Scope::EventsPublish, async |who| {
        let map = read_body(request, &["type", "data"], true)?;
        let event_type = event_type(&map, None)?;
        let data = match map.get("data") {
            Some(Value::Object(data)) => data.clone(),
            None | Some(Value::Null) => {
                return Err(ApiError::validation("data", "'data' is required"))
            }
            Some(_) => return Err(ApiError::validation("data", "'data' must be an object")),
        };
        check_data(&event_type, &data)?;
        let key = idempotency_key(request)?;
        let data = Value::Object(data);
        if let Some(key) = key {
            if let Some(replay) = replay(services, &who.user_id, key, &event_type, &data).await? {
                return Ok(replay);
            }
        }
        let published = publish(
            services,
            &who.user_id,
            &event_type,
            data.clone(),
            Targets::Subscribed,
            key,
        )
        .await;
        let published = match (published, key) {
            // Another request with the same key won the race: answer as it did.
            (Err(ApiError::Conflict { .. }), Some(key)) => {
                if let Some(replay) =
                    replay(services, &who.user_id, key, &event_type, &data).await?
                {
                    return Ok(replay);
                }
                return Err(ApiError::Unavailable {
                    cause: "an event with this idempotency key vanished during a race".into(),
                });
            }
            (other, _) => other?,
        };
        Ok(Response::json(
            202,
            &json!({ "data": published.envelope, "meta": { "deliveries": published.deliveries } }),
        ))
    })
    .await
}

/// Longest `Idempotency-Key`, in characters.
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

/// The request's `Idempotency-Key` header: 1 to 255 visible ASCII characters, or absent.
fn idempotency_key(request: &Request) -> Result<Option<&str>, ApiError> {
    let Some(key) = request.header("idempotency-key") else {
        return Ok(None);
    };
    let key = crate::http::trim_ascii(key);
    if key.is_empty()
        || key.len() > MAX_IDEMPOTENCY_KEY_CHARS
        || !key.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(ApiError::bad_param(
            "Idempotency-Key",
            format!("'Idempotency-Key' must be 1 to {MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters"),
        ));
    }
    Ok(Some(key))
}

/// The answer to a publish whose `Idempotency-Key` the user has used before: the same event
/// (`202`, `Idempotent-Replayed: true`) when the request is the same, `409` when it is not.
async fn replay<S: Services>(
    services: &S,
    user_id: &str,
    key: &str,
    event_type: &str,
    data: &Value,
) -> Result<Option<Response>, ApiError> {
    let rows = services
        .query(Statement::new(
            "SELECT e.body, (SELECT COUNT(*) FROM deliveries d WHERE d.event_id = e.id) AS n \
             FROM events e WHERE e.user_id = ?1 AND e.idempotency_key = ?2",
            vec![user_id.into(), key.into()],
        ))
        .await?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let envelope: Value = serde_json::from_str(&text(row, "body").unwrap_or_default())
        .map_err(|e| ApiError::internal(format!("stored envelope: {e}")))?;
    if envelope["type"] != event_type || &envelope["data"] != data {
        return Err(ApiError::Conflict {
            message: "this Idempotency-Key was already used to publish a different event".into(),
            field: "Idempotency-Key".into(),
            existing_id: None,
        });
    }
    Ok(Some(
        Response::json(
            202,
            &json!({ "data": envelope, "meta": { "deliveries": int(row, "n"), "replayed": true } }),
        )
        .with_header("idempotent-replayed", "true"),
    ))
}

/// Reads a JSON object body whose keys are all in `allowed`. An empty body is an empty object
/// when `required` is false.
fn read_body(
    request: &Request,
    allowed: &[&str],
    required: bool,
) -> Result<Map<String, Value>, ApiError> {
    if request.body.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge {
            limit: MAX_BODY_BYTES,
        });
    }
    if !required && request.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    if !request.is_json() {
        return Err(ApiError::bad_request(
            "the body must be JSON, sent with 'Content-Type: application/json'",
        ));
    }
    let map = crate::http::json_object(&request.body)?;
    if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(ApiError::validation(
            key,
            format!(
                "'{key}' cannot be written; writable: {}",
                allowed.join(", ")
            ),
        ));
    }
    Ok(map)
}

/// The `type` of an event body, one of the six; `default` when absent (test events).
fn event_type(map: &Map<String, Value>, default: Option<&str>) -> Result<String, ApiError> {
    match (map.get("type"), default) {
        (None | Some(Value::Null), Some(d)) => Ok(d.to_string()),
        (Some(Value::String(t)), _) if EVENT_TYPES.contains(&t.as_str()) => Ok(t.clone()),
        (None | Some(Value::Null), None) => Err(ApiError::validation("type", "'type' is required")),
        _ => Err(ApiError::validation(
            "type",
            format!("'type' must be one of {}", EVENT_TYPES.join(", ")),
        )),
    }
}

/// Checks an event's data. `report.finalized` carries the interface's four fields with their
/// types (more fields may follow them); other types carry any object.
fn check_data(event_type: &str, data: &Map<String, Value>) -> Result<(), ApiError> {
    if event_type != "report.finalized" {
        return Ok(());
    }
    for key in ["report_id", "exam_type", "status"] {
        let field = format!("data.{key}");
        match data.get(key) {
            Some(Value::String(s))
                if !crate::http::is_blank(s) && s.chars().count() <= MAX_DATA_STRING_CHARS => {}
            Some(Value::String(_)) => {
                return Err(ApiError::validation(
                    &field,
                    format!("'{field}' must be a non-blank string of at most {MAX_DATA_STRING_CHARS} characters"),
                ))
            }
            None | Some(Value::Null) => {
                return Err(ApiError::validation(
                    &field,
                    format!("'{field}' is required for report.finalized"),
                ))
            }
            Some(_) => {
                return Err(ApiError::validation(
                    &field,
                    format!("'{field}' must be a string"),
                ))
            }
        }
    }
    match data.get("has_critical_finding") {
        Some(Value::Bool(_)) => Ok(()),
        None | Some(Value::Null) => Err(ApiError::validation(
            "data.has_critical_finding",
            "'data.has_critical_finding' is required for report.finalized",
        )),
        Some(_) => Err(ApiError::validation(
            "data.has_critical_finding",
            "'data.has_critical_finding' must be true or false",
        )),
    }
}

/// Which subscriptions an event goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Targets<'a> {
    /// Every active subscription of the publisher whose events include the type.
    Subscribed,
    /// One subscription (its test function).
    Only(&'a str),
}

struct Published {
    envelope: Value,
    deliveries: usize,
}

/// Stores an event and its deliveries and queues them: all of it or, on failure, none.
async fn publish<S: Services>(
    services: &S,
    user_id: &str,
    event_type: &str,
    data: Value,
    targets: Targets<'_>,
    idempotency_key: Option<&str>,
) -> Result<Published, ApiError> {
    let id = format!("evt_{}", services.random_hex(16)?);
    let now = services.now_ms();
    let created_at = iso8601(now);
    let envelope = json!({ "id": id, "type": event_type, "created_at": created_at, "data": data });
    let body = serde_json::to_string(&envelope).map_err(|e| ApiError::internal(e.to_string()))?;
    let (source, webhooks): (&str, Vec<String>) = match targets {
        Targets::Only(webhook) => ("test", vec![webhook.to_string()]),
        Targets::Subscribed => (
            "publish",
            services
                .query(Statement::new(
                    "SELECT id FROM webhooks WHERE user_id = ?1 AND active = 1 \
                     AND EXISTS (SELECT 1 FROM json_each(webhooks.events) \
                     WHERE json_each.value = ?2) ORDER BY created_at, id",
                    vec![user_id.into(), event_type.into()],
                ))
                .await?
                .iter()
                .filter_map(|r| text(r, "id"))
                .collect(),
        ),
    };
    let event = Statement::new(
        "INSERT INTO events (id, user_id, type, source, created_at, body, idempotency_key) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        vec![
            id.clone().into(),
            user_id.into(),
            event_type.into(),
            source.into(),
            created_at.into(),
            body.into(),
            idempotency_key.map(String::from).into(),
        ],
    );
    let forget_event = Statement::new("DELETE FROM events WHERE id = ?1", vec![id.clone().into()]);
    let deliveries =
        queue_deliveries(services, Some((event, forget_event)), &id, &webhooks, now).await?;
    Ok(Published {
        envelope,
        deliveries,
    })
}

/// Writes the event (`event`: its insert and the statement that undoes it, when it is new) and
/// one pending delivery of `event_id` per subscription in one batch, then queues a message per
/// delivery. If the queue refuses, all of it is deleted again and the call fails with 503:
/// nothing is half-published.
async fn queue_deliveries<S: Services>(
    services: &S,
    event: Option<(Statement, Statement)>,
    event_id: &str,
    webhooks: &[String],
    now: u64,
) -> Result<usize, ApiError> {
    let stamp = iso8601(now);
    let mut ids = Vec::with_capacity(webhooks.len());
    let (first, undo) = event.unzip();
    let mut writes: Vec<Statement> = first.into_iter().collect();
    for webhook in webhooks {
        let id = format!("dlv_{}", services.random_hex(12)?);
        writes.push(Statement::new(
            "INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, \
             next_attempt_ms, created_at, updated_at) VALUES (?1, ?2, ?3, 'pending', 0, ?4, ?5, ?5)",
            vec![
                id.clone().into(),
                event_id.into(),
                webhook.clone().into(),
                (now as i64).into(),
                stamp.clone().into(),
            ],
        ));
        ids.push(id);
    }
    services.batch(writes).await.map_err(|e| match e {
        // Only the event's idempotency key is unique among these rows.
        DbError::Unique => ApiError::Conflict {
            message: "this Idempotency-Key is already in use".into(),
            field: "Idempotency-Key".into(),
            existing_id: None,
        },
        other => other.into(),
    })?;
    if ids.is_empty() {
        return Ok(0);
    }
    let messages = ids.iter().map(|id| delivery::message(id)).collect();
    if let Err(cause) = services.enqueue(messages).await {
        let mut undo_all: Vec<Statement> = ids
            .iter()
            .map(|id| {
                Statement::new(
                    "DELETE FROM deliveries WHERE id = ?1",
                    vec![id.clone().into()],
                )
            })
            .collect();
        undo_all.extend(undo);
        if let Err(e) = services.batch(undo_all).await {
            services.log(&format!(
                "event {event_id}: undoing an unqueued publish failed: {e:?}"
            ));
        }
        return Err(ApiError::Unavailable {
            cause: format!("event {event_id} could not be queued: {cause}"),
        });
    }
    Ok(ids.len())
}

/// The subscription if it is the caller's: 404 when there is none, 403 when it is another
/// user's.
async fn owned<S: Services>(services: &S, who: &Principal, id: &str) -> Result<Webhook, ApiError> {
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
fn sealing_key(app: &App) -> Result<&crate::config::SecretKey, ApiError> {
    app.config
        .webhook_key
        .as_ref()
        .ok_or_else(|| ApiError::Unavailable {
            cause: "WEBHOOK_SECRET_KEY is not set (64 hex digits, a Worker secret)".into(),
        })
}

fn sealed_secret<S: Services>(
    app: &App,
    services: &S,
    id: &str,
    secret: &str,
) -> Result<String, ApiError> {
    let key = sealing_key(app)?;
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

async fn operate<S: Services>(
    app: &App,
    services: &S,
    who: &Principal,
    route: &WebhookRoute,
    request: &Request,
) -> Result<Response, ApiError> {
    let loopback = app.config.allow_http_loopback;
    match (route, request.method) {
        (WebhookRoute::Collection, Method::Post) => {
            let map = read_body(request, &["url", "events", "secret"], true)?;
            let url = string_value(&map, "url")?
                .ok_or_else(|| ApiError::validation("url", "'url' is required"))?;
            check_url(url, loopback).map_err(rejected)?;
            let events = events_value(&map)?
                .ok_or_else(|| ApiError::validation("events", "'events' is required"))?;
            let secret = string_value(&map, "secret")?
                .ok_or_else(|| ApiError::validation("secret", "'secret' is required"))?;
            check_secret(secret).map_err(rejected)?;
            let count = services
                .query(Statement::new(
                    "SELECT COUNT(*) AS n FROM webhooks WHERE user_id = ?1",
                    vec![who.user_id.clone().into()],
                ))
                .await?;
            if count.first().map(|r| int(r, "n")).unwrap_or(0) >= MAX_WEBHOOKS_PER_USER {
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
                url: url.to_string(),
                events,
                active: true,
                deactivated_at: None,
                deactivated_reason: None,
                created_at: now.clone(),
                updated_at: now,
            };
            let sealed = sealed_secret(app, services, &w.id, secret)?;
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
            Ok(data(201, &w).with_header("location", format!("/api/v1/webhooks/{}", w.id)))
        }
        (WebhookRoute::Collection, Method::Get | Method::Head) => {
            let (limit, offset) = paging(request, 20)?;
            let total = services
                .query(Statement::new(
                    "SELECT COUNT(*) AS n FROM webhooks WHERE user_id = ?1",
                    vec![who.user_id.clone().into()],
                ))
                .await?
                .first()
                .map(|r| int(r, "n"))
                .unwrap_or(0);
            let rows = services
                .query(Statement::new(
                    format!(
                        "SELECT {COLUMNS} FROM webhooks WHERE user_id = ?1 \
                         ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
                    ),
                    vec![who.user_id.clone().into(), limit.into(), offset.into()],
                ))
                .await?;
            let items: Vec<Value> = rows
                .iter()
                .map(|r| Webhook::from_row(r).to_json())
                .collect();
            Ok(page(items, total, limit, offset))
        }
        (WebhookRoute::Item(id), Method::Get | Method::Head) => {
            Ok(data(200, &owned(services, who, id).await?))
        }
        (WebhookRoute::Item(id), Method::Patch) => {
            let map = read_body(request, &["url", "events", "secret", "active"], true)?;
            let mut w = owned(services, who, id).await?;
            if let Some(url) = string_value(&map, "url")? {
                check_url(url, loopback).map_err(rejected)?;
                w.url = url.to_string();
            }
            if let Some(events) = events_value(&map)? {
                w.events = events;
            }
            let secret = match string_value(&map, "secret")? {
                Some(secret) => {
                    check_secret(secret).map_err(rejected)?;
                    Some(sealed_secret(app, services, &w.id, secret)?)
                }
                None => None,
            };
            let active = match map.get("active") {
                None => None,
                Some(Value::Bool(b)) => Some(*b),
                Some(_) => {
                    return Err(ApiError::validation(
                        "active",
                        "'active' must be true or false",
                    ))
                }
            };
            let now = iso8601(services.now_ms());
            let mut writes = Vec::new();
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
                    writes.push(cancel_pending(&w.id, &now));
                }
                _ => {}
            }
            w.updated_at = now;
            writes.insert(
                0,
                Statement::new(
                    "UPDATE webhooks SET url = ?2, events = ?3, \
                     secret_ciphertext = COALESCE(?4, secret_ciphertext), active = ?5, \
                     deactivated_at = ?6, deactivated_reason = ?7, updated_at = ?8 \
                     WHERE id = ?1 AND user_id = ?9",
                    vec![
                        w.id.clone().into(),
                        w.url.clone().into(),
                        json!(w.events).to_string().into(),
                        secret.into(),
                        w.active.into(),
                        w.deactivated_at.clone().into(),
                        w.deactivated_reason.clone().into(),
                        w.updated_at.clone().into(),
                        who.user_id.clone().into(),
                    ],
                ),
            );
            services.batch(writes).await?;
            Ok(data(200, &w))
        }
        (WebhookRoute::Item(id), Method::Delete) => {
            let w = owned(services, who, id).await?;
            let by_webhook = |sql: &str| Statement::new(sql, vec![w.id.clone().into()]);
            services
                .batch(vec![
                    by_webhook("DELETE FROM attempts WHERE webhook_id = ?1"),
                    by_webhook("DELETE FROM deliveries WHERE webhook_id = ?1"),
                    by_webhook("DELETE FROM webhooks WHERE id = ?1"),
                ])
                .await?;
            Ok(Response::empty(204))
        }
        (WebhookRoute::Test(id), Method::Post) => {
            let map = read_body(request, &["type"], false)?;
            let event_type = event_type(&map, Some("report.finalized"))?;
            let w = owned(services, who, id).await?;
            inactive_conflict(&w)?;
            let sample = sample_data(&event_type, &services.random_hex(6)?);
            let published = publish(
                services,
                &who.user_id,
                &event_type,
                sample,
                Targets::Only(&w.id),
                None,
            )
            .await?;
            Ok(Response::json(
                202,
                &json!({ "data": published.envelope, "meta": { "webhook_id": w.id, "deliveries": published.deliveries } }),
            ))
        }
        (WebhookRoute::Deliveries(id), Method::Get | Method::Head) => {
            let (limit, offset) = paging(request, 20)?;
            let w = owned(services, who, id).await?;
            let mut params: Vec<SqlValue> = vec![w.id.clone().into()];
            let mut filter = String::from("webhook_id = ?1");
            if let Some(event) = crate::corpus_api::Params::get(request, "event_id")? {
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
            let items: Vec<Value> = rows.iter().map(attempt_json).collect();
            Ok(page(items, total, limit, offset))
        }
        (WebhookRoute::Redeliver(id, event_id), Method::Post) => {
            let w = owned(services, who, id).await?;
            inactive_conflict(&w)?;
            let rows = services
                .query(Statement::new(
                    "SELECT state FROM deliveries WHERE webhook_id = ?1 AND event_id = ?2",
                    vec![w.id.clone().into(), event_id.clone().into()],
                ))
                .await?;
            if rows.is_empty() {
                return Err(ApiError::not_found(format!(
                    "webhook {} has no delivery of event '{}'",
                    w.id,
                    event_id.chars().take(64).collect::<String>()
                )));
            }
            if rows
                .iter()
                .any(|r| text(r, "state").as_deref() == Some("pending"))
            {
                return Err(ApiError::Conflict {
                    message: "a delivery of this event to this webhook is still in progress".into(),
                    field: "event_id".into(),
                    existing_id: None,
                });
            }
            let now = services.now_ms();
            queue_deliveries(services, None, event_id, std::slice::from_ref(&w.id), now).await?;
            Ok(Response::json(
                202,
                &json!({ "data": { "webhook_id": w.id, "event_id": event_id, "state": "pending" } }),
            ))
        }
        (_, method) => Err(ApiError::MethodNotAllowed {
            method,
            allow: route.allow(),
        }),
    }
}

fn inactive_conflict(w: &Webhook) -> Result<(), ApiError> {
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

fn attempt_json(row: &Row) -> Value {
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

/// Sample data of a test event; `report.finalized` has the interface's shape.
fn sample_data(event_type: &str, nonce: &str) -> Value {
    let report = format!("rep_test_{nonce}");
    match event_type {
        "report.finalized" => json!({
            "report_id": report, "exam_type": "CT chest", "status": "final",
            "has_critical_finding": false,
        }),
        "report.created" | "report.updated" => json!({
            "report_id": report, "exam_type": "CT chest",
            "status": if event_type == "report.created" { "draft" } else { "final" },
        }),
        "report.sent" => json!({
            "report_id": report, "exam_type": "CT chest", "status": "final", "destination": "pacs",
        }),
        "critical_finding.detected" => json!({
            "report_id": report, "exam_type": "CT chest",
            "finding": "Sample critical finding (test event)",
        }),
        _ => json!({
            "connection_id": "pacs-test", "status": "connected", "previous_status": "disconnected",
        }),
    }
}
