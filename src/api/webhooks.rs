//! The webhook routes: subscriptions under `/api/v1/webhooks` (the `webhooks` scope) and
//! publishing under `POST /api/v1/events` (the `events:publish` scope). One function per
//! endpoint, reading the request and shaping the answer; the rules and the SQL live in
//! `webhooks`.

use crate::call::Call;
use crate::error::ApiError;
use crate::http::{Request, Response};
use crate::input::{json_object, page, paging, trim_ascii, BodyRule, Params};
use crate::routes::WebhookOp;
use crate::services::Services;
use crate::webhooks::publish::{
    check_data, event_type, publish_once, unreadable_member, EventData, Published,
};
use crate::webhooks::subscriptions::{self as subs, Webhook};
use crate::webhooks::MAX_IDEMPOTENCY_KEY_CHARS;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// A body of this family: JSON, only the listed fields.
const fn body(writable: &'static [&'static str], optional: bool) -> BodyRule<'static> {
    BodyRule {
        writable,
        read_only: &[],
        optional,
    }
}

/// Runs a webhook operation.
pub async fn dispatch<S: Services>(
    op: WebhookOp,
    call: &Call<'_, S>,
) -> Result<Response, ApiError> {
    match op {
        WebhookOp::ListWebhooks => list(call).await,
        WebhookOp::CreateWebhook => create(call).await,
        WebhookOp::GetWebhook => get(call).await,
        WebhookOp::UpdateWebhook => update(call).await,
        WebhookOp::DeleteWebhook => delete(call).await,
        WebhookOp::TestWebhook => test(call).await,
        WebhookOp::ListWebhookDeliveries => deliveries(call).await,
        WebhookOp::RedeliverWebhookEvent => redeliver(call).await,
        WebhookOp::RotateWebhookSecret => rotate(call).await,
        WebhookOp::ListEventTypes => Ok(event_types()),
        WebhookOp::PublishEvent => publish(call).await,
    }
}

fn data(status: u16, w: &Webhook) -> Response {
    Response::json(status, &json!({ "data": w.to_json() }))
}

/// `GET /webhooks`
async fn list<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let (limit, offset) = paging(call.request, 20)?;
    let (items, total) = subs::list(call.services, call.who()?, limit, offset).await?;
    let items = items.iter().map(Webhook::to_json).collect();
    Ok(page(items, total, limit, offset))
}

/// `POST /webhooks`
async fn create<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let fields = json_object(call.request, body(subs::CREATE_FIELDS, false))?;
    let w = subs::create(&call.app.config, call.services, call.who()?, &fields).await?;
    Ok(data(201, &w).with_header("location", format!("/api/v1/webhooks/{}", w.id)))
}

/// `GET /webhooks/{id}`
async fn get<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let w = subs::owned(call.services, call.who()?, call.path("id")).await?;
    Ok(data(200, &w))
}

/// `PATCH /webhooks/{id}`
async fn update<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let fields = json_object(call.request, body(subs::UPDATE_FIELDS, false))?;
    let (config, who) = (&call.app.config, call.who()?);
    let w = subs::update(config, call.services, who, call.path("id"), &fields).await?;
    Ok(data(200, &w))
}

/// `POST /webhooks/{id}/rotate`: an optional body `{overlap_hours}`; the new secret is in the
/// answer, once.
async fn rotate<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let fields = json_object(call.request, body(subs::ROTATE_FIELDS, true))?;
    let (config, who) = (&call.app.config, call.who()?);
    let (w, secret) = subs::rotate(config, call.services, who, call.path("id"), &fields).await?;
    Ok(Response::json(
        200,
        &json!({ "data": w.to_json(), "secret": secret }),
    ))
}

/// `GET /webhooks/event-types`: the catalog, from the one declaration of the event types.
fn event_types() -> Response {
    let items: Vec<Value> = crate::webhooks::EVENTS
        .iter()
        .map(|spec| {
            json!({
                "type": spec.name,
                "description": spec.description,
                "schema": crate::webhooks::publish::envelope_schema(spec),
                "example": {
                    "id": "evt_0123456789abcdef0123456789abcdef",
                    "type": spec.name,
                    "created_at": "2026-01-01T00:00:00Z",
                    "data": crate::webhooks::publish::sample_data(spec.name, "example"),
                },
            })
        })
        .collect();
    Response::json(
        200,
        &json!({ "data": items, "meta": { "total": items.len() } }),
    )
}

/// `DELETE /webhooks/{id}`
async fn delete<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    subs::delete(call.services, call.who()?, call.path("id")).await?;
    Ok(Response::empty(204))
}

/// `POST /webhooks/{id}/test`: an optional body naming the event type.
async fn test<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let fields = json_object(call.request, body(&["type"], true))?;
    let event_type = event_type(&fields, Some("report.finalized"))?;
    let (w, published) =
        subs::test(call.services, call.who()?, call.path("id"), &event_type).await?;
    let meta = json!({ "webhook_id": w.id, "deliveries": published.deliveries });
    Ok(Response::json(202, &Answer::new(&published, meta)))
}

/// The answer to a publish or a test event: the envelope exactly as stored (not through a
/// `Value`, which would re-spell its numbers), and `meta`.
#[derive(Serialize)]
struct Answer<'a> {
    data: &'a RawValue,
    meta: Value,
}

impl<'a> Answer<'a> {
    fn new(published: &'a Published, meta: Value) -> Answer<'a> {
        Answer {
            data: &published.envelope,
            meta,
        }
    }
}

/// `GET /webhooks/{id}/deliveries`
async fn deliveries<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let paged = paging(call.request, 20)?;
    let event_id = call.request.get("event_id")?;
    let (items, total) =
        subs::attempts(call.services, call.who()?, call.path("id"), event_id, paged).await?;
    Ok(page(items, total, paged.0, paged.1))
}

/// `POST /webhooks/{id}/deliveries/{event_id}/redeliver`
async fn redeliver<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let event_id = call.path("event_id");
    let w = subs::redeliver(call.services, call.who()?, call.path("id"), event_id).await?;
    Ok(Response::json(
        202,
        &json!({ "data": { "webhook_id": w.id, "event_id": event_id, "state": "pending" } }),
    ))
}

/// `POST /events`
async fn publish<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let fields =
        json_object(call.request, body(&["type", "data"], false)).map_err(|e| match e {
            // Valid JSON that a Value cannot hold is named, not called malformed.
            ApiError::BadRequest { .. } => unreadable_member(&call.request.body).unwrap_or(e),
            e => e,
        })?;
    let event_type = event_type(&fields, None)?;
    match fields.get("data") {
        Some(Value::Object(data)) => check_data(&event_type, data)?,
        None | Some(Value::Null) => return Err(ApiError::validation("data", "'data' is required")),
        Some(_) => return Err(ApiError::validation("data", "'data' must be an object")),
    };
    // What is delivered is the publisher's own text of `data`, not `fields` written out again.
    let data = EventData::from_body(&call.request.body)?;
    let key = idempotency_key(call.request)?;
    let who = call.who()?;
    let published = publish_once(call.services, &who.user_id, &event_type, &data, key).await?;
    Ok(published_response(&published))
}

/// The 202 of a publish; a replayed one says so in its body and `Idempotent-Replayed`.
fn published_response(published: &Published) -> Response {
    let mut meta = json!({ "deliveries": published.deliveries });
    if published.replayed {
        meta["replayed"] = json!(true);
    }
    let response = Response::json(202, &Answer::new(published, meta));
    if published.replayed {
        response.with_header("idempotent-replayed", "true")
    } else {
        response
    }
}

/// The request's `Idempotency-Key` header: 1 to 255 visible ASCII characters, or absent.
fn idempotency_key(request: &Request) -> Result<Option<&str>, ApiError> {
    let Some(key) = request.header("idempotency-key") else {
        return Ok(None);
    };
    let key = trim_ascii(key);
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
