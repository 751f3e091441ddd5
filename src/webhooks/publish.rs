//! Publishing an event: the event and one pending delivery per target subscription are
//! written in one atomic batch, then one queue message per delivery is sent. If the queue
//! refuses, the rows are removed again and the call fails, so an event is either published and
//! queued or not published at all. An `Idempotency-Key` makes a retried publish answer with
//! the event it first published.

use super::delivery;
use super::EVENT_TYPES;
use crate::db::{int, text, OnUnique, Statement};
use crate::error::ApiError;
use crate::input::is_blank;
use crate::services::Services;
use crate::time::iso8601;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Longest string in an event's `data` that the interface names, in characters.
pub const MAX_DATA_STRING_CHARS: usize = 200;

/// An event's `data` as JSON text: the publisher's own, without the whitespace between tokens.
///
/// Reading `data` into a [`Value`] and writing it out again would change it: a float holds
/// `123456789012345678901234567890` as `1.2345678901234568e+29`, `-0` becomes `-0.0`, and
/// escapes such as `\u00e9` are decoded. So the text the publisher sent is what is stored,
/// signed and delivered, and the `Value` is only used to check it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventData(String);

impl EventData {
    /// The `data` member of a publish body, as sent. The body has already been read as a JSON
    /// object (so it is valid JSON); of a member given twice, the last counts, as it does when
    /// the body is read into a `Value`.
    pub fn from_body(body: &[u8]) -> Result<EventData, ApiError> {
        let members: BTreeMap<String, &RawValue> = serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))?;
        let data = members
            .get("data")
            .ok_or_else(|| ApiError::validation("data", "'data' is required"))?;
        Ok(EventData(compact(data.get())))
    }

    /// Data the service writes itself (a test event's sample).
    pub fn from_value(value: &Value) -> EventData {
        EventData(value.to_string())
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// When a body is valid JSON but could not be read into a `Value`, the member at fault and
/// why: a number beyond a 64-bit float (`1e400`), a lone UTF-16 surrogate (`"\ud800"`), or
/// nesting deeper than 128 levels. radref delivers such JSON neither changed nor unread, so it
/// refuses it by name (422) instead of calling the body malformed.
pub fn unreadable_member(body: &[u8]) -> Option<ApiError> {
    let members: BTreeMap<String, &RawValue> = serde_json::from_slice(body).ok()?;
    members.into_iter().find_map(|(name, raw)| {
        let e = serde_json::from_str::<Value>(raw.get()).err()?;
        Some(ApiError::validation(
            &name,
            format!(
                "'{name}' cannot be read without changing it ({e}): numbers must fit a 64-bit \
                 float (send larger ones as strings), strings must be valid Unicode, and \
                 nesting may go 128 levels deep"
            ),
        ))
    })
}

/// Valid JSON text without the whitespace between its tokens; strings, numbers and escapes are
/// kept byte for byte.
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// The envelope posted to subscribers, in this field order.
#[derive(Serialize)]
struct Envelope<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    event_type: &'a str,
    created_at: &'a str,
    data: &'a RawValue,
}

/// The parts of a stored envelope a replay compares.
#[derive(Deserialize)]
struct StoredEnvelope<'a> {
    #[serde(rename = "type")]
    event_type: String,
    #[serde(borrow)]
    data: &'a RawValue,
}

/// The event a user published earlier under `key`, when there is one: the same event when
/// the request is the same, `409` when the key was used for a different one.
pub async fn replay<S: Services>(
    services: &S,
    user_id: &str,
    key: &str,
    event_type: &str,
    data: &EventData,
) -> Result<Option<Published>, ApiError> {
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
    let stored = |e: serde_json::Error| ApiError::internal(format!("stored envelope: {e}"));
    let envelope = RawValue::from_string(text(row, "body").unwrap_or_default()).map_err(stored)?;
    let earlier: StoredEnvelope = serde_json::from_str(envelope.get()).map_err(stored)?;
    // The same event is the same JSON text (spacing aside): what would be delivered. Two
    // numbers a float cannot tell apart are still different events.
    if earlier.event_type != event_type || compact(earlier.data.get()) != data.as_str() {
        return Err(ApiError::Conflict {
            message: "this Idempotency-Key was already used to publish a different event".into(),
            field: "Idempotency-Key".into(),
            existing_id: None,
        });
    }
    Ok(Some(Published {
        envelope,
        deliveries: int(row, "n") as usize,
        replayed: true,
    }))
}

/// The `type` of an event body, one of the six; `default` when absent (test events).
pub fn event_type(map: &Map<String, Value>, default: Option<&str>) -> Result<String, ApiError> {
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

/// Checks an event's data against its type's required fields ([`super::EVENTS`]): each present
/// with its type (more fields may follow them).
pub fn check_data(event_type: &str, data: &Map<String, Value>) -> Result<(), ApiError> {
    let Some(spec) = super::EVENTS.iter().find(|e| e.name == event_type) else {
        return Ok(());
    };
    for (key, kind) in spec.required {
        let field = format!("data.{key}");
        let value = data.get(*key);
        let wrong = |what: &str| ApiError::validation(&field, format!("'{field}' must be {what}"));
        match (kind, value) {
            (_, None | Some(Value::Null)) => {
                return Err(ApiError::validation(
                    &field,
                    format!("'{field}' is required for {event_type}"),
                ))
            }
            (super::Field::Text, Some(Value::String(s)))
                if !is_blank(s) && s.chars().count() <= MAX_DATA_STRING_CHARS => {}
            (super::Field::Text, Some(Value::String(_))) => {
                return Err(wrong(&format!(
                    "a non-blank string of at most {MAX_DATA_STRING_CHARS} characters"
                )))
            }
            (super::Field::Text, Some(_)) => return Err(wrong("a string")),
            (super::Field::Flag, Some(Value::Bool(_))) => {}
            (super::Field::Flag, Some(_)) => return Err(wrong("true or false")),
        }
    }
    Ok(())
}

/// The JSON Schema (2020-12) of the envelope a subscriber receives for an event type.
pub fn envelope_schema(spec: &super::EventSpec) -> Value {
    let mut properties = Map::new();
    for (key, kind) in spec.required {
        properties.insert(
            key.to_string(),
            match kind {
                super::Field::Text => json!({ "type": "string", "minLength": 1, "maxLength": MAX_DATA_STRING_CHARS, "pattern": "\\S" }),
                super::Field::Flag => json!({ "type": "boolean" }),
            },
        );
    }
    let required: Vec<&str> = spec.required.iter().map(|(k, _)| *k).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": spec.name,
        "type": "object",
        "required": ["id", "type", "created_at", "data"],
        "additionalProperties": false,
        "properties": {
            "id": { "type": "string", "pattern": "^evt_[0-9a-f]{32}$" },
            "type": { "const": spec.name },
            "created_at": { "type": "string", "format": "date-time" },
            "data": { "type": "object", "required": required, "properties": properties },
        },
    })
}

/// Which subscriptions an event goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Targets<'a> {
    /// Every active subscription of the publisher whose events include the type.
    Subscribed,
    /// One subscription (its test function).
    Only(&'a str),
}

/// A published event: its envelope and how many deliveries were queued.
#[derive(Clone, Debug)]
pub struct Published {
    /// The envelope as stored and delivered, byte for byte.
    pub envelope: Box<RawValue>,
    pub deliveries: usize,
    /// Whether this answers a retried publish with the event its key first published.
    pub replayed: bool,
}

/// Stores an event and its deliveries and queues them: all of it or, on failure, none.
pub async fn publish<S: Services>(
    services: &S,
    user_id: &str,
    event_type: &str,
    data: &EventData,
    targets: Targets<'_>,
    idempotency_key: Option<&str>,
) -> Result<Published, ApiError> {
    let id = format!("evt_{}", services.random_hex(16)?);
    let now = services.now_ms();
    let created_at = iso8601(now);
    let internal = |e: serde_json::Error| ApiError::internal(e.to_string());
    let data: &RawValue = serde_json::from_str(data.as_str()).map_err(internal)?;
    let body = serde_json::to_string(&Envelope {
        id: &id,
        event_type,
        created_at: &created_at,
        data,
    })
    .map_err(internal)?;
    let envelope = RawValue::from_string(body.clone()).map_err(internal)?;
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
    // A new event has no delivery yet: only its idempotency key can be taken.
    let conflict = || ApiError::Conflict {
        message: "this Idempotency-Key is already in use".into(),
        field: "Idempotency-Key".into(),
        existing_id: None,
    };
    let deliveries = queue_deliveries(
        services,
        Some((event, forget_event)),
        &id,
        &webhooks,
        now,
        conflict,
    )
    .await?;
    Ok(Published {
        envelope,
        deliveries,
        replayed: false,
    })
}

/// Writes the event (`event`: its insert and the statement that undoes it, when it is new) and
/// one pending delivery of `event_id` per subscription in one batch, then queues a message per
/// delivery. If the queue refuses, all of it is deleted again and the call fails with 503:
/// nothing is half-published.
pub async fn queue_deliveries<S: Services>(
    services: &S,
    event: Option<(Statement, Statement)>,
    event_id: &str,
    webhooks: &[String],
    now: u64,
    conflict: impl FnOnce() -> ApiError,
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
    // Unique among these rows: the event's idempotency key, and one pending delivery per
    // webhook and event (migration 0006). The caller says which conflict it can meet.
    services.batch(writes).await.on_unique(conflict)?;
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

/// Sample data of a test event; `report.finalized` has the interface's shape.
pub fn sample_data(event_type: &str, nonce: &str) -> Value {
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

/// Publishes a user's event to their subscriptions, at most once per `idempotency_key`: a
/// repeated key answers with the event it first published (or 409 for a different event),
/// and of two concurrent requests with one key, the unique index lets one publish and the
/// other answers with its event.
pub async fn publish_once<S: Services>(
    services: &S,
    user_id: &str,
    event_type: &str,
    data: &EventData,
    idempotency_key: Option<&str>,
) -> Result<Published, ApiError> {
    let Some(key) = idempotency_key else {
        return publish(
            services,
            user_id,
            event_type,
            data,
            Targets::Subscribed,
            None,
        )
        .await;
    };
    if let Some(earlier) = replay(services, user_id, key, event_type, data).await? {
        return Ok(earlier);
    }
    let published = publish(
        services,
        user_id,
        event_type,
        data,
        Targets::Subscribed,
        Some(key),
    )
    .await;
    match published {
        // Another request with the same key won the race: answer as it did.
        Err(ApiError::Conflict { .. }) => replay(services, user_id, key, event_type, data)
            .await?
            .ok_or_else(|| ApiError::Unavailable {
                cause: "an event with this idempotency key vanished during a race".into(),
            }),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compacting_drops_only_the_space_between_tokens() {
        assert_eq!(
            compact(
                " { \"a b\" : [ 1 ,\n\t-0 , 1e400 ] , \"c\":\"x \\\" y\\\\\" , \"d\" : \" \" }\r\n"
            ),
            "{\"a b\":[1,-0,1e400],\"c\":\"x \\\" y\\\\\",\"d\":\" \"}"
        );
        assert_eq!(
            compact("\"\\u00e9 \\ud83d\\ude00\""),
            "\"\\u00e9 \\ud83d\\ude00\""
        );
    }

    #[test]
    fn data_is_taken_from_the_body_as_sent() {
        let body =
            br#"{"data": {"n": 123456789012345678901234567890}, "type": "x", "data": {"n": -0 }}"#;
        // The last member of a name counts, as when the body is read into a Value.
        assert_eq!(EventData::from_body(body).unwrap().as_str(), r#"{"n":-0}"#);
        let field = match unreadable_member(br#"{"type": "x", "data": {"n": 1e400}}"#) {
            Some(ApiError::Validation { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field, "data");
        assert!(unreadable_member(br#"{"data": {"n": 1e308}}"#).is_none());
        assert!(unreadable_member(b"{not json").is_none());
    }
}
