//! The OpenAPI 3.1 description of the service, served at `GET /api/v1/openapi`.
//!
//! Its paths come from the endpoint table (`routes::ENDPOINTS`): each row gives the path, the
//! method, the `operationId`, the tag, the summary and the security. What an operation takes
//! and answers comes from [`operation`], one exhaustive match, so an operation that is not
//! documented does not compile. Every limit in a schema is the constant the code enforces.

use crate::corpus::compiled::{self, SYSTEMS};
use crate::corpus::evaluate::evaluate_link;
use crate::corpus::source::Status;
use crate::error::ErrorFormat;
use crate::input::{MAX_OFFSET, MAX_PAGE};
use crate::mrrt;
use crate::routes::{
    Access, ContextOp, CorpusOp, McpOp, Op, ServiceOp, TemplateOp, WebhookOp, API_VERSION,
    ENDPOINTS,
};
use crate::schema::{self, Kind, Place};
use crate::templates as tpl;
use crate::webhooks::{self as wh, publish::MAX_DATA_STRING_CHARS};
use serde_json::{json, Map, Value};

/// The OpenAPI document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for e in ENDPOINTS {
        let mut op = json!({ "operationId": e.op.id(), "tags": [e.tag], "summary": e.summary });
        if let Access::Key(_) = e.access {
            op["security"] = json!([ { "bearerAuth": [] }, { "apiKeyHeader": [] } ]);
        }
        if let Value::Object(parts) = operation(e.op) {
            for (name, value) in parts {
                op[name] = value;
            }
        }
        let cap = e.op.body_limit();
        if cap > 0 {
            op["responses"]["413"] = too_large(cap, e.errors);
        }
        let item = paths.entry(e.path).or_insert_with(|| json!({}));
        item[e.method.as_str().to_ascii_lowercase()] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "radref",
            "version": API_VERSION,
            "summary": "Open reference of radiology classification systems, with report templates and webhooks.",
            "description": "Radiology classification systems paraphrased from and cited to their primary sources; every clinical line carries a citation, a locator, a consensus indication and a draft/verified status. Reference material only: not a medical device, no substitute for clinical judgment; the reporting radiologist remains responsible. Corpus errors are {\"error\": string}. Corpus routes are rate-limited per client IP; counts are kept per worker isolate (per location), not globally.",
            "license": { "name": "Content: paraphrased, cited reference material" }
        },
        "servers": [ { "url": "/" } ],
        "tags": [ { "name": "corpus", "description": "Open, read-only, CORS *" }, { "name": "templates", "description": "Per-user report templates; bearer key with the templates scope" }, { "name": "webhooks", "description": "Signed event deliveries to subscriber URLs, with retries; bearer key with the webhooks scope (publishing: events:publish)" }, { "name": "service" } ],
        "paths": paths,
        "components": components(),
    })
}

/// The 413 of an endpoint that reads at most `cap` bytes of body, in its error format.
fn too_large(cap: usize, errors: ErrorFormat) -> Value {
    let schema = match errors {
        ErrorFormat::Simple => "Error",
        ErrorFormat::Detailed => "DetailedError",
    };
    json!({
        "description": format!("payload_too_large: the body is larger than {cap} bytes (refused by its Content-Length before it is read; details.limit_bytes in the detailed format)."),
        "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } }
    })
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "headers": rate_headers(),
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
    })
}

fn rate_headers() -> Value {
    json!({
        "X-RateLimit-Limit": { "$ref": "#/components/headers/X-RateLimit-Limit" },
        "X-RateLimit-Remaining": { "$ref": "#/components/headers/X-RateLimit-Remaining" },
        "X-RateLimit-Reset": { "$ref": "#/components/headers/X-RateLimit-Reset" }
    })
}

fn ok(description: &str, schema: Value) -> Value {
    let mut headers = rate_headers();
    headers["ETag"] = json!({ "$ref": "#/components/headers/ETag" });
    headers["Cache-Control"] = json!({ "$ref": "#/components/headers/Cache-Control" });
    json!({
        "description": description,
        "headers": headers,
        "content": { "application/json": { "schema": schema } }
    })
}

/// A date as `corpus::syntax::is_date` accepts it, or empty (absent): `YYYY`, `YYYY-MM`, or
/// `YYYY-MM-DD` naming a day of the Gregorian calendar. Days 29 and 30 exist in every month but
/// February, 31 in the long months, and 29 February in years divisible by 4, except centuries
/// not divisible by 400.
const DATE_PATTERN: &str = concat!(
    "^(",
    "[0-9]{4}(-(0[1-9]|1[0-2])(-(0[1-9]|1[0-9]|2[0-8]))?)?",
    "|[0-9]{4}-(0[13-9]|1[0-2])-(29|30)",
    "|[0-9]{4}-(0[13578]|1[02])-31",
    "|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[048]|[2468][048]|[13579][26])00)-02-29",
    ")?$"
);

/// A voice phrase must hold a character other than ASCII whitespace, ASCII punctuation and
/// ASCII control characters (see `templates::normalize_voice`).
const VOICE_PATTERN: &str = "[^\\s!-/:-@\\[-`{-~\\x00-\\x1f\\x7f]";

/// An optional query parameter's schema that also admits the empty string, which the service
/// reads as "not given" (`Params::get`): enums gain `""`, booleans become a choice.
fn or_empty(mut schema: Value) -> Value {
    if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut) {
        if !values.contains(&json!("")) {
            values.push(json!(""));
        }
        return schema;
    }
    if schema.get("type") == Some(&json!("boolean")) {
        let default = schema.get("default").cloned();
        let mut choice =
            json!({ "anyOf": [ { "type": "boolean" }, { "type": "string", "maxLength": 0 } ] });
        if let Some(d) = default {
            choice["default"] = d;
        }
        return choice;
    }
    schema
}

/// The query parameters of an operation, from its declared arguments (`schema`).
fn query_params(op: Op) -> Vec<Value> {
    schema::arguments(op)
        .iter()
        .filter(|a| a.place == Place::Query)
        .map(|a| {
            let description = schema::describe(a);
            match a.kind {
                // A list in a query: comma-separated, at least one entry.
                Kind::Slugs { max } => {
                    json!({ "name": a.name, "in": "query", "required": a.required,
                    "style": "form", "explode": false, "description": description,
                    "schema": { "type": "array", "minItems": 1, "maxItems": max,
                        "items": { "type": "string", "enum": schema::slugs() } } })
                }
                Kind::Integer { min, max, default } => q(
                    a.name,
                    &description,
                    limit_schema(min, max, default),
                    a.required,
                ),
                kind => q(a.name, &description, schema::value_schema(kind), a.required),
            }
        })
        .collect()
}

/// The JSON body of an operation, from its declared arguments: an object of exactly those
/// fields, `null` admitted where the declaration says it means "left out".
fn body_schema(op: Op) -> Value {
    let mut properties = Map::new();
    for a in schema::arguments(op) {
        let mut schema = schema::value_schema(a.kind);
        if a.place == Place::NullableBody {
            schema = nullable(schema);
        } else if a.place != Place::Body {
            continue;
        }
        schema["description"] = json!(schema::describe(a));
        properties.insert(a.name.to_string(), schema);
    }
    json!({ "type": "object", "additionalProperties": false, "properties": properties })
}

/// A body field's schema where `null` (and, for a choice, the empty string) means "left out".
fn nullable(mut schema: Value) -> Value {
    if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut) {
        values.push(json!(""));
        values.push(Value::Null);
        if let Some(object) = schema.as_object_mut() {
            object.remove("type");
        }
        return schema;
    }
    if let Some(kind) = schema.get("type").cloned() {
        schema["type"] = json!([kind, "null"]);
    }
    schema
}

/// An integer query parameter (`limit`, `max_tokens`): in its declared range, or empty
/// (meaning the default).
fn limit_schema(min: usize, max: usize, default: usize) -> Value {
    json!({
        "anyOf": [
            { "type": "integer", "minimum": min, "maximum": max },
            { "type": "string", "maxLength": 0 }
        ],
        "default": default
    })
}

/// Responses of a template operation: the success, the errors every one has, and `extra`.
fn template_responses(status: &str, body: Value, extra: &[&str]) -> Value {
    let mut responses = keyed_template_responses(status, body, extra);
    responses["400"]["description"] = json!("bad_request: malformed JSON, a body that is not a JSON object, a Content-Type other than application/json or text/html, or (details.field = body) an HTML body that is not an MRRT template, with what is missing or malformed.");
    responses
}

fn keyed_template_responses(status: &str, body: Value, extra: &[&str]) -> Value {
    keyed_responses(
        status,
        body,
        "forbidden: the template belongs to another user, or the key lacks the templates scope.",
        &extra
            .iter()
            .map(|code| {
                let text = match *code {
                    "404" => "not_found: no such template (or no template answers to the command).",
                    "409" => "conflict: a voice command or alias is already one of the caller's (details.field = voice_command, details.existing_template_id).",
                    _ => "validation_error: details.field names the offending field or parameter.",
                };
                (*code, text)
            })
            .collect::<Vec<_>>(),
    )
}

/// Responses of a keyed operation (templates, webhooks, events): the success, 400, 401, 403
/// (`forbidden`), 429, and the `extra` statuses with their descriptions.
fn keyed_responses(status: &str, body: Value, forbidden: &str, extra: &[(&str, &str)]) -> Value {
    let detailed = |description: &str| {
        json!({ "description": description, "headers": rate_headers(),
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/DetailedError" } } } })
    };
    let mut responses = json!({
        "400": detailed("bad_request: malformed JSON, a body that is not a JSON object, or a Content-Type other than application/json."),
        "401": { "description": "unauthorized: key missing, malformed, unknown or revoked.",
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/DetailedError" } } } },
        "403": detailed(forbidden),
        "429": detailed("rate_limited: too many requests for this key; see Retry-After.")
    });
    responses[status] = if body.is_null() {
        json!({ "description": "Done; no body.", "headers": rate_headers() })
    } else {
        json!({ "description": "Success.", "headers": rate_headers(), "content": { "application/json": { "schema": body } } })
    };
    for (code, text) in extra {
        responses[*code] = detailed(text);
    }
    responses
}

/// Responses of a webhook operation.
fn webhook_responses(status: &str, body: Value, extra: &[&str]) -> Value {
    let extra: Vec<(&str, &str)> = extra
        .iter()
        .map(|code| {
            let text = match *code {
                "404" => "not_found: no such webhook (or no delivery of that event to it).",
                "409" => "conflict: the webhook is inactive (reactivate it with PATCH active=true), a delivery of the event is still in progress, the user already holds the most webhooks allowed, or (publishing) the Idempotency-Key was used for a different event.",
                "503" => "unavailable: storage or the deliveries queue failed (nothing was published or changed; retry), or the deployment has no WEBHOOK_SECRET_KEY.",
                _ => "validation_error: details.field names the offending field or parameter (url, events, secret, active, type, data.<field>, limit, offset).",
            };
            (*code, text)
        })
        .collect();
    keyed_responses(
        status,
        body,
        "forbidden: the webhook belongs to another user, or the key lacks the webhooks (events:publish) scope.",
        &extra,
    )
}

fn data_of(schema: &str) -> Value {
    json!({ "type": "object", "required": ["data"], "properties": { "data": { "$ref": format!("#/components/schemas/{schema}") } } })
}

fn page_of(schema: &str) -> Value {
    json!({
        "type": "object", "required": ["data", "meta"],
        "properties": {
            "data": { "type": "array", "items": { "$ref": format!("#/components/schemas/{schema}") } },
            "meta": { "type": "object", "required": ["total", "limit", "offset", "has_more"],
                "properties": { "total": { "type": "integer" }, "limit": { "type": "integer" }, "offset": { "type": "integer" }, "has_more": { "type": "boolean" } } }
        }
    })
}

/// Subscriber URLs as the schema states them: https, a DNS name, an optional port and path.
/// (The service also refuses local names such as `.local`; see `webhooks::check_url`.)
const URL_PATTERN: &str = "^https://[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?)*\\.(com|org|net|io|dev|example)(:[1-9][0-9]{0,3})?(/[A-Za-z0-9._~-]{0,40}){0,4}$";

/// The schemas of the webhook routes.
fn webhook_schemas() -> Value {
    let events = json!({ "type": "array", "minItems": 1, "items": { "$ref": "#/components/schemas/EventType" },
        "description": "At least one event type; a repeated type counts once." });
    let secret = json!({ "type": "string", "minLength": wh::MIN_SECRET_CHARS, "maxLength": wh::MAX_SECRET_CHARS, "description": format!("Signing secret chosen by the subscriber ({} to {} characters). Never returned.", wh::MIN_SECRET_CHARS, wh::MAX_SECRET_CHARS) });
    let url = json!({ "type": "string", "maxLength": wh::MAX_URL_CHARS, "pattern": URL_PATTERN,
        "description": "https only; no credentials; no private, loopback, link-local or metadata address literal and no local name (localhost, .local, .internal). Deployments for local testing may allow http to a loopback address (ALLOW_HTTP_LOOPBACK)." });
    let text = json!({ "type": "string", "minLength": 1, "maxLength": MAX_DATA_STRING_CHARS, "pattern": "\\S" });
    json!({
        "EventType": { "type": "string", "enum": wh::EVENT_TYPES },
        "Webhook": {
            "type": "object",
            "required": ["id", "url", "events", "active", "deactivated_at", "deactivated_reason", "created_at", "updated_at"],
            "properties": {
                "id": { "type": "string" }, "url": { "type": "string" }, "events": { "type": "array", "items": { "$ref": "#/components/schemas/EventType" } },
                "active": { "type": "boolean", "description": "False after five failed attempts of one delivery (delivery_failures) or when paused (by_request)." },
                "deactivated_at": { "type": ["string", "null"] },
                "deactivated_reason": { "enum": ["delivery_failures", "by_request", null] },
                "created_at": { "type": "string" }, "updated_at": { "type": "string" },
                "previous_secret_expires_at": { "type": ["string", "null"], "description": "Until when the secret the last rotation replaced signs beside the current one (null: no rotation with an overlap)." }
            }
        },
        "WebhookCreate": {
            "type": "object", "additionalProperties": false, "required": ["url", "events", "secret"],
            "properties": { "url": url.clone(), "events": events.clone(), "secret": secret.clone() }
        },
        "WebhookUpdate": {
            "type": "object", "additionalProperties": false,
            "properties": { "url": url, "events": events, "secret": secret, "active": { "type": "boolean" } }
        },
        "WebhookEvent": {
            "type": "object", "required": ["id", "type", "created_at", "data"],
            "description": "The envelope posted to subscribers, byte for byte the same on every attempt.",
            "properties": { "id": { "type": "string", "description": "Unique event id (evt_...); also the webhook-id header. Deduplicate on it." },
                "type": { "$ref": "#/components/schemas/EventType" }, "created_at": { "type": "string" },
                "data": { "type": "object", "description": "The publisher's data as its JSON text, only the whitespace between tokens removed: numbers keep their digits (123456789012345678901234567890, -0) and strings their escapes." } }
        },
        "EventPublish": {
            "oneOf": [
                { "type": "object", "additionalProperties": false, "required": ["type", "data"],
                  "properties": { "type": { "const": "report.finalized" },
                    "data": { "type": "object", "required": ["report_id", "exam_type", "status", "has_critical_finding"],
                      "properties": { "report_id": text.clone(), "exam_type": text.clone(), "status": text, "has_critical_finding": { "type": "boolean" } } } } },
                { "type": "object", "additionalProperties": false, "required": ["type", "data"],
                  "properties": { "type": { "enum": ["report.created", "report.sent", "report.updated", "critical_finding.detected", "connection.status_changed"] },
                    "data": { "type": "object" } } }
            ]
        },
        "DeliveryAttempt": {
            "type": "object",
            "required": ["delivery_id", "event_id", "type", "attempt", "outcome", "status_code", "duration_ms", "error", "attempted_at", "next_attempt_at"],
            "properties": {
                "delivery_id": { "type": "string" }, "event_id": { "type": "string" }, "type": { "$ref": "#/components/schemas/EventType" },
                "attempt": { "type": "integer", "minimum": 1, "maximum": wh::MAX_ATTEMPTS },
                "outcome": { "enum": ["succeeded", "failed"] },
                "status_code": { "type": ["integer", "null"], "description": "The subscriber's status; null when there was none (timeout, network error, reset)." },
                "duration_ms": { "type": "integer" },
                "error": { "type": ["string", "null"] },
                "attempted_at": { "type": "string" },
                "next_attempt_at": { "type": ["string", "null"], "description": "When the next attempt is due after a failure; null after a success or the last attempt." }
            }
        }
    })
}

fn context_responses(post: bool) -> Value {
    let mut responses = json!({
        "200": {
            "description": "The context, as JSON or as a markdown block (format=markdown).",
            "headers": rate_headers(),
            "content": {
                "application/json": { "schema": { "$ref": "#/components/schemas/ContextResponse" } },
                "text/markdown": { "schema": { "type": "string" } }
            }
        },
        "400": error_response("Invalid parameter or body; the message names it."),
        "401": error_response("API key missing, malformed, unknown or revoked."),
        "403": error_response("The key lacks the context scope."),
        "429": { "$ref": "#/components/responses/RateLimited" }
    });
    if !post {
        responses["414"] = json!({ "description": "The URL is longer than the runtime accepts; send the text with POST." });
    }
    responses
}

/// A query parameter; an optional one also admits the empty string (see [`or_empty`]).
fn q(name: &str, description: &str, schema: Value, required: bool) -> Value {
    json!({ "name": name, "in": "query", "required": required, "description": description,
        "schema": if required { schema } else { or_empty(schema) } })
}

/// A path parameter.
fn path(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "path", "required": true, "description": description, "schema": schema })
}

/// The parts of a corpus `GET`: its parameters and its responses (200, 304, 400, 429).
fn corpus_get(params: Value, body: Value) -> Value {
    json!({
        "parameters": params,
        "responses": {
            "200": body,
            "304": { "$ref": "#/components/responses/NotModified" },
            "400": error_response("Invalid parameter; the message names it and the allowed values."),
            "429": { "$ref": "#/components/responses/RateLimited" }
        }
    })
}

/// A prebuilt text document: 200 with its media type, 304, 429.
fn text_get(media_type: &str, description: &str) -> Value {
    json!({ "responses": {
        "200": { "description": description, "content": { media_type: { "schema": { "type": "string" } } } },
        "304": { "$ref": "#/components/responses/NotModified" },
        "429": { "$ref": "#/components/responses/RateLimited" } } })
}

fn paging_params(default_limit: i64) -> Vec<Value> {
    vec![
        q(
            "limit",
            &format!("Page size, 1 to {MAX_PAGE}."),
            json!({ "anyOf": [ { "type": "integer", "minimum": 1, "maximum": MAX_PAGE }, { "type": "string", "maxLength": 0 } ], "default": default_limit }),
            false,
        ),
        q(
            "offset",
            "Items to skip.",
            json!({ "anyOf": [ { "type": "integer", "minimum": 0, "maximum": MAX_OFFSET }, { "type": "string", "maxLength": 0 } ], "default": 0 }),
            false,
        ),
    ]
}

fn template_id() -> Value {
    path(
        "id",
        "The template id (tpl_...).",
        json!({ "type": "string" }),
    )
}

fn webhook_id() -> Value {
    path(
        "id",
        "The webhook id (wh_ and 24 hex digits).",
        json!({ "type": "string", "pattern": "^wh_[0-9a-f]{24}$" }),
    )
}

/// A template body that may also be an IHE MRRT document (`Content-Type: text/html`).
fn with_mrrt_body(mut body: Value) -> Value {
    body["content"]["text/html"] = json!({ "schema": { "type": "string",
        "description": "An IHE MRRT report template (HTML5/XHTML). Its title is the name, its body the content (sanitised), its Dublin Core metadata and template_attributes the metadata, its coded_content the coded_content, and radref.* metadata the labels and tags. A document that is not an MRRT template is refused with 400 naming what is missing or malformed." } });
    body
}

fn json_body(schema: Value, example: Option<Value>) -> Value {
    let mut media = json!({ "schema": schema });
    if let Some(example) = example {
        media["example"] = example;
    }
    json!({ "required": true, "content": { "application/json": media } })
}

/// What an operation takes and answers: its parameters, request body and responses (and a
/// description where the summary is not enough). The match is exhaustive: a new operation
/// does not compile until it is documented here.
fn operation(op: Op) -> Value {
    match op {
        Op::Service(op) => service_operation(op),
        Op::Corpus(op) => corpus_operation(op),
        Op::Context(op) => context_operation(op),
        Op::Mcp(McpOp::PostMcp) => mcp_operation(),
        Op::Templates(op) => template_operation(op),
        Op::Webhooks(op) => webhook_operation(op),
    }
}

fn service_operation(op: ServiceOp) -> Value {
    match op {
        ServiceOp::GetHealth => {
            json!({ "responses": { "200": { "description": "The service is up.", "content": { "application/json": { "schema": {
            "type": "object", "required": ["status", "version", "corpus"],
            "properties": { "status": { "const": "ok" }, "service": { "type": "string" }, "version": { "type": "string" },
                "api_version": { "type": "string" }, "environment": { "type": "string" },
                "corpus": { "type": "object", "required": ["hash"], "properties": { "hash": { "type": "string", "pattern": "^[0-9a-f]{64}$" }, "systems": { "type": "integer" }, "clinical_lines": { "type": "integer" }, "bodies": { "type": "string", "enum": ["bundle", "store"], "description": "Where the system bodies live: compiled into the worker, or in packs of the static-asset store, each read by an isolate on the first request that meets a body in it (chosen at build time by size)." }, "packs": { "type": "integer", "minimum": 0, "description": "How many packs the store holds (0 when the bodies are in the bundle)." }, "packs_read": { "type": "integer", "minimum": 0, "description": "How many of them this isolate has read: each is read on the first request that meets a body in it, so a fresh isolate has read none." } } },
                "memory": { "type": "object", "description": "Only in the benchmark environment (`make bench`): the isolate's wasm memory.",
                    "properties": { "wasm_bytes": { "type": ["integer", "null"] } } } }
        } } } } } })
        }
        ServiceOp::GetOpenApi => json!({ "responses": {
            "200": { "description": "OpenAPI 3.1 document.", "content": { "application/json": { "schema": { "type": "object" } } } },
            "304": { "$ref": "#/components/responses/NotModified" },
            "429": { "$ref": "#/components/responses/RateLimited" } } }),
        ServiceOp::GetLlmsTxt => text_get("text/plain", "Markdown text."),
    }
}

fn corpus_operation(op: CorpusOp) -> Value {
    match op {
        CorpusOp::ListOrgans => corpus_get(json!([]),
            ok("Organs.", json!({ "type": "object", "required": ["data", "meta"], "properties": {
                "data": { "type": "array", "items": { "type": "object", "required": ["organ", "systems", "by_family"],
                    "properties": { "organ": { "type": "string" }, "systems": { "type": "integer" }, "by_family": { "type": "object", "additionalProperties": { "type": "integer" } }, "links": { "type": "object" } } } },
                "meta": { "type": "object" } } }))),
        CorpusOp::ListSystems => corpus_get(json!(query_params(Op::Corpus(op))), ok("Matching systems; by slug without q.", json!({ "type": "object", "required": ["data", "meta", "notice"], "properties": {
            "data": { "type": "array", "items": { "$ref": "#/components/schemas/SystemSummary" } },
            "meta": { "type": "object", "required": ["total"], "properties": { "total": { "type": "integer" }, "filters": { "type": "object" } } },
            "notice": { "type": "string" } } }))),
        CorpusOp::GetSystem => json!({
            "parameters": [ { "name": "id", "in": "path", "required": true, "description": "The system's stable slug.", "schema": { "type": "string" }, "example": example_evaluation().0 } ],
            "responses": {
                "200": ok("The system.", json!({ "$ref": "#/components/schemas/SystemDetail" })),
                "304": { "$ref": "#/components/responses/NotModified" },
                "404": error_response("Unknown slug; the message suggests the closest slugs."),
                "429": { "$ref": "#/components/responses/RateLimited" }
            }
        }),
        CorpusOp::SearchCorpus => corpus_get(json!(query_params(Op::Corpus(op))), ok("Hits, best first.", json!({ "type": "object", "required": ["query", "data", "meta"], "properties": {
            "query": { "type": "string" },
            "data": { "type": "array", "items": { "$ref": "#/components/schemas/SearchHit" } },
            "meta": { "type": "object" }, "notice": { "type": "string" } } }))),
        CorpusOp::ListChanges => corpus_get(json!([
            q("since", "Only events on or after this date (YYYY, YYYY-MM or YYYY-MM-DD); a day that does not exist in the calendar, such as 2021-02-29, gets 400.", json!({ "type": "string", "pattern": DATE_PATTERN }), false),
            q("limit", &format!("Maximum events, 1 to {}.", crate::corpus::compiled::CHANGES_MAX_LIMIT), limit_schema(1, crate::corpus::compiled::CHANGES_MAX_LIMIT, crate::corpus::compiled::CHANGES_DEFAULT_LIMIT), false)
        ]), ok("Events.", json!({ "type": "object", "required": ["data", "meta"], "properties": {
            "data": { "type": "array", "items": { "$ref": "#/components/schemas/Event" } },
            "meta": { "type": "object", "properties": { "total": { "type": "integer" }, "limit": { "type": "integer" }, "since": { "type": ["string", "null"] } } } } }))),
        CorpusOp::GetChangesRss => text_get("application/rss+xml", "RSS 2.0 feed."),
        CorpusOp::EvaluateSystem | CorpusOp::EvaluateSystemPost => evaluate_operation(op == CorpusOp::EvaluateSystemPost),
        CorpusOp::DiffSystems | CorpusOp::RescoreSystems => versions_operation(op),
        CorpusOp::GetFhirCodeSystem => json!({
            "description": "A FHIR R4 CodeSystem resource for one system and version: its decision units (`unit:<id>`), inputs (`input:<id>`), input values (`input:<id>=<value>`) and categories (their own codes), each with its definition. Its `url` is the `system` of radref's codings in the Observations that evaluate with format=fhir return; one CodeSystem per version, because a category means something else in another version.",
            "parameters": [ path("id", "The system's stable slug.", json!({ "type": "string" })) ],
            "responses": {
                "200": { "description": "The CodeSystem.", "headers": rate_headers(),
                    "content": { "application/fhir+json": { "schema": { "type": "object", "required": ["resourceType", "url", "status", "content", "concept"],
                        "properties": { "resourceType": { "const": "CodeSystem" }, "url": { "type": "string" }, "version": { "type": "string" },
                            "status": { "type": "string", "enum": ["draft", "active"] }, "content": { "const": "complete" },
                            "concept": { "type": "array", "items": { "type": "object", "required": ["code"] } } } } } } },
                "304": { "$ref": "#/components/responses/NotModified" },
                "404": error_response("Unknown slug; the message suggests the closest slugs."),
                "429": { "$ref": "#/components/responses/RateLimited" }
            }
        }),
        CorpusOp::GetCoverage => corpus_get(json!([]),
            ok("Coverage report.", json!({ "$ref": "#/components/schemas/Coverage" }))),
    }
}

/// The document's example of two versions of one guideline: the first system the corpus
/// lists as superseded, and the first version that supersedes it.
fn example_pair() -> Option<(&'static str, &'static str)> {
    (0..SYSTEMS.len())
        .filter(|&i| SYSTEMS[i].superseded)
        // As for the evaluation's example: an unread pack ends the walk.
        .map_while(compiled::logic)
        .find_map(|l| {
            let later = l.currency.superseded_by.first()?;
            compiled::system(later).map(|s| (l.slug.as_str(), s.slug))
        })
}

/// `GET /api/v1/systems/{id}/diff/{other}` and `POST /api/v1/systems/{id}/rescore/{other}`.
fn versions_operation(op: CorpusOp) -> Value {
    let (from, to) = example_pair().unwrap_or(("", ""));
    let params = vec![
        path("id", &format!("The slug of the version compared from (e.g. {from})."), json!({ "type": "string" })),
        path("other", &format!("The slug of another version of the same guideline (e.g. {to}): one its supersedes or superseded_by links reach, in either direction."), json!({ "type": "string" })),
    ];
    let errors = |ok: Value| {
        json!({
            "200": ok,
            "400": error_response("The two slugs are the same system, or not versions of one guideline (the message lists the versions the corpus has); for a re-score, an input neither version takes, a value neither declares, a wrong type, or more than the most input sets; the message names the field."),
            "404": error_response("Unknown slug; the message suggests the closest slugs."),
            "429": { "$ref": "#/components/responses/RateLimited" }
        })
    };
    let content = |schema: &str| {
        json!({
        "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } },
        "text/markdown": { "schema": { "type": "string" } } })
    };
    match op {
        CorpusOp::DiffSystems => {
            let mut params = params;
            params.extend(query_params(Op::Corpus(op)));
            let mut responses = errors(
                json!({ "description": "The changes from the first version to the second, by kind, each with the cited lines of both sides; JSON, or a markdown block with format=markdown.",
                "headers": rate_headers(), "content": content("Diff") }),
            );
            responses["304"] = json!({ "$ref": "#/components/responses/NotModified" });
            json!({
                "description": "Compares the logic of two versions as data: inputs (added, removed, renamed, type or range changed), their values and points, decision units, categories (added, removed, renamed, split, merged: renames, splits and merges as the later version's cited correspondence states them), the rules of each unit paired by the category they decide (a threshold that moved, a condition that changed, a rule added or removed) and management (the follow-up intervals a category's management names, a rule's result). Ids the versions share are compared as the same thing. The later version's own lineage events are listed as what the sources announce.",
                "parameters": params,
                "responses": responses
            })
        }
        _ => json!({
            "description": "Evaluates one input set, or a list of up to 100, under both versions with the one evaluator. Inputs may use either version's ids; an input or value one version does not take is set aside for that version with the reason (never translated by guesswork), and what each version still needs is listed. A unit moved when both versions decide it and the later answer is not what the earlier one corresponds to. A list answers per case (a case whose inputs are refused carries its error; the others are answered) and with counts of the cases moved from which category to which.",
            "parameters": params,
            "requestBody": json_body(body_schema(Op::Corpus(op)), Some(json!({ "inputs": [{}, {}] }))),
            "responses": errors(json!({ "description": "Each unit under both versions; for a list, each case and the movements.", "headers": rate_headers(), "content": content("Rescore") }))
        }),
    }
}

/// The document's example of an evaluation, taken from the corpus so it always evaluates: the
/// first example of the first current system that has one, as its slug, its inputs and the
/// GET link that evaluates them.
fn example_evaluation() -> (&'static str, &'static Map<String, Value>, String) {
    static NO_INPUTS: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    SYSTEMS
        .iter()
        .enumerate()
        .filter(|(_, s)| s.status == Status::Current)
        // A body in an unread pack of the corpus store ends the walk: the dispatcher reads
        // that pack and asks again (a bundle build always has the body).
        .map_while(|(i, s)| Some((s, compiled::logic(i)?)))
        .find_map(|(s, logic)| {
            let example = logic
                .decision_units
                .iter()
                .flat_map(|u| &u.examples)
                .next()?;
            let given = logic.model().inputs_from_json(&example.inputs).ok()?;
            let link = evaluate_link(s.slug, logic.model(), &given, None);
            Some((s.slug, &example.inputs, link))
        })
        // The build checks that every unit has an example, so only an unread pack lands here.
        .unwrap_or((SYSTEMS[0].slug, &NO_INPUTS, String::new()))
}

/// `GET|POST /api/v1/systems/{id}/evaluate`.
fn evaluate_operation(post: bool) -> Value {
    let (slug, inputs, link) = example_evaluation();
    let id = json!({ "name": "id", "in": "path", "required": true, "description": format!("The system's stable slug (e.g. {slug})."), "schema": { "type": "string" } });
    let format = q(
        "format",
        "json (default), markdown (one compact cited block for an assistant) or fhir (a FHIR R4 Bundle of Observations; also chosen by Accept: application/fhir+json when no format is given).",
        json!({ "type": "string", "enum": schema::EVALUATION_FORMATS }),
        false,
    );
    let units = compiled::UNIT_IDS;
    let ok = json!({
        "description": "Each decision unit's answer (decided, needs_inputs or not_reached), as JSON or as a markdown block (format=markdown).",
        "headers": if post { rate_headers() } else {
            let mut h = rate_headers();
            h["ETag"] = json!({ "$ref": "#/components/headers/ETag" });
            h["Cache-Control"] = json!({ "$ref": "#/components/headers/Cache-Control" });
            h
        },
        "content": {
            "application/json": { "schema": { "$ref": "#/components/schemas/Evaluation" } },
            "text/markdown": { "schema": { "type": "string" } },
            "application/fhir+json": { "schema": { "type": "object", "required": ["resourceType", "type", "entry"],
                "description": "format=fhir (or Accept: application/fhir+json with no format): a FHIR R4 Bundle of type collection, one Observation per decided unit (status preliminary while a line it rests on is a draft; code the unit; valueCodeableConcept the category, or valueString the result; component the inputs given; method the system, version and rule; note the cited lines with their locators).",
                "properties": { "resourceType": { "const": "Bundle" }, "type": { "const": "collection" }, "entry": { "type": "array", "items": { "type": "object" } } } } }
        }
    });
    let mut responses = json!({
        "200": ok,
        "400": error_response("An unknown input (the message lists the system's inputs), a value of the wrong type, an enum value the input does not declare (the message lists the allowed ones), a number outside min/max, a single value for a multi input in a JSON body, an unknown unit or an unknown body field; the message names the field."),
        "404": error_response("Unknown slug; the message suggests the closest slugs."),
        "429": { "$ref": "#/components/responses/RateLimited" }
    });
    if post {
        json!({
            "description": "Inputs are the system's input ids (see its `inputs` in GET /api/v1/systems/{id}): a string for an enum, a list for a multi ([] for none chosen), a number, true/false; null counts as not given. A derived input given directly overrides the unit it derives from. `units` evaluates only those units and the units they depend on.",
            "parameters": [id, format],
            "requestBody": json_body(body_schema(Op::Corpus(CorpusOp::EvaluateSystemPost)), Some(json!({ "inputs": inputs }))),
            "responses": responses
        })
    } else {
        responses["304"] = json!({ "$ref": "#/components/responses/NotModified" });
        let mut units_any: Vec<Value> = units.iter().map(|&u| Value::from(u)).collect();
        units_any.push(json!(""));
        json!({
            "description": format!("Every query parameter other than format and units is an input of the system, by its id (see its `inputs` in GET /api/v1/systems/{{id}}): an enum value, a number, true/false (or 1/0), or a multi input's values comma-separated (one value is a one-element list; an empty value means none chosen). For example {link}. The URL holds every input, so the answer is cacheable and shareable."),
            "parameters": [id, format,
                q("units", "Comma-separated decision unit ids: evaluate only these and the units they depend on.", json!({ "type": "string", "enum": units_any }), false)],
            "responses": responses
        })
    }
}

fn context_operation(op: ContextOp) -> Value {
    match op {
        ContextOp::GetGroundedContext => json!({
            "description": "The most relevant systems for a finding, with their cited criteria, outcomes, management and risk, as JSON or as a markdown block for an AI assistant. Give q, systems, or both; with neither, nothing is grounded (an empty systems list and a note). With verified=true (default) only current systems and verified lines are included, and each system says how many draft lines were withheld.",
            "parameters": query_params(Op::Context(op)),
            "responses": context_responses(false)
        }),
        ContextOp::PostGroundedContext => {
            json!({
                "requestBody": json_body({
                    let mut body = body_schema(Op::Context(op));
                    body["description"] = json!("Every field is optional; null means the same as leaving it out. Give text, systems, or both; with neither, nothing is grounded.");
                    body
                }, Some(json!({ "text": "Incidental 8 mm solid pulmonary nodule on CT in a 60-year-old smoker", "limit": 3 }))),
                "responses": context_responses(true)
            })
        }
    }
}

fn mcp_operation() -> Value {
    json!({
        "description": format!("Model Context Protocol server with the read-only tools {}. Each tool serves the same operation as an HTTP route, with the same arguments and refusals. Stateless: every request gets one JSON response; notifications get 202. Protocol versions: {}. GET /mcp answers 405 (no server-initiated stream).",
            crate::routes::tools().map(|(_, t)| t.name).collect::<Vec<_>>().join(", "),
            crate::routes::MCP_PROTOCOL_VERSIONS.join(", ")),
        "requestBody": json_body(json!({
            "oneOf": [
                { "$ref": "#/components/schemas/JsonRpcMessage" },
                { "type": "array", "minItems": 1, "items": { "$ref": "#/components/schemas/JsonRpcMessage" } }
            ]
        }), Some(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }))),
        "responses": {
            "200": { "description": "JSON-RPC response (or array of responses for a batch).", "headers": rate_headers(),
                "content": { "application/json": { "schema": { "oneOf": [ { "type": "object" }, { "type": "array", "items": { "type": "object" } } ] } } } },
            "202": { "description": "Only notifications or responses were sent: accepted, no body." },
            "400": { "description": "Malformed JSON or JSON-RPC message, or unsupported MCP-Protocol-Version.", "content": { "application/json": { "schema": { "type": "object", "required": ["jsonrpc", "error"] } } } },
            "415": { "description": "Content-Type is not application/json.", "content": { "application/json": { "schema": { "type": "object" } } } },
            "429": { "$ref": "#/components/responses/RateLimited" }
        }
    })
}

fn template_operation(op: TemplateOp) -> Value {
    match op {
        TemplateOp::ListTemplates => {
            let mut params = paging_params(50);
            params.extend([
                q(
                    "exam_type",
                    "Filter (case-insensitive).",
                    json!({ "type": "string" }),
                    false,
                ),
                q(
                    "modality",
                    "Filter by DICOM modality (case-insensitive).",
                    json!({ "type": "string" }),
                    false,
                ),
                q(
                    "category",
                    "Filter (case-insensitive).",
                    json!({ "type": "string" }),
                    false,
                ),
                q(
                    "tags",
                    &format!(
                        "Comma-separated tags, at most {}; all must match (case-insensitive).",
                        tpl::MAX_FILTER_TAGS
                    ),
                    json!({ "type": "string" }),
                    false,
                ),
                q(
                    "search",
                    "Case-insensitive substring of name or content_text.",
                    json!({ "type": "string" }),
                    false,
                ),
                q(
                    "favorites_only",
                    "Only the caller's own favourites (another user's favourite flag is private).",
                    json!({ "type": "boolean", "default": false }),
                    false,
                ),
                q(
                    "sort",
                    "Sort key. With scope=public, usage_count ranks by the caller's own uses: other users' templates count as unused (ties break by id).",
                    json!({ "type": "string", "enum": tpl::SORTS, "default": "usage_count" }),
                    false,
                ),
                q(
                    "order",
                    "Sort order.",
                    json!({ "type": "string", "enum": ["asc", "desc"], "default": "desc" }),
                    false,
                ),
                q(
                    "scope",
                    "mine (default): the caller's templates; public: every public template, other users' ones in the public view (PublicTemplate).",
                    json!({ "type": "string", "enum": ["mine", "public"], "default": "mine" }),
                    false,
                ),
            ]);
            json!({ "parameters": params, "responses": template_responses("200", page_of("TemplateView"), &["422"]) })
        }
        TemplateOp::CreateTemplate => json!({
            "requestBody": with_mrrt_body(json_body(json!({ "$ref": "#/components/schemas/TemplateCreate" }),
                Some(json!({ "name": "CT chest routine", "content": "<h2>FINDINGS</h2><p>Lungs: clear.</p>", "modality": "CT", "tags": ["chest"], "voice_command": "normal chest" })))),
            "responses": template_responses("201", data_of("Template"), &["409", "422"])
        }),
        TemplateOp::ResolveVoiceCommand => json!({
            "parameters": [ q("command", "The spoken phrase.", json!({ "type": "string", "minLength": 1, "pattern": VOICE_PATTERN }), true) ],
            "responses": template_responses("200", data_of("Template"), &["404", "422"])
        }),
        TemplateOp::GetTemplate => {
            let mut responses = template_responses("200", data_of("TemplateView"), &["404"]);
            responses["200"]["description"] = json!("The template: JSON by default; the IHE MRRT document (XHTML) when Accept prefers text/html. Vary: Accept.");
            responses["200"]["content"]["text/html"] = json!({ "schema": { "type": "string", "description": "An IHE MRRT report template: <title>, <meta charset>, Dublin Core <meta name=\"dcterms.*\">, radref.* labels, <script type=\"text/xml\"> with template_attributes and coded_content, and the content as <body>." } });
            json!({ "parameters": [ template_id() ],
                "description": "Send Accept: text/html for the MRRT export; POST it back with Content-Type: text/html to import the same template.",
                "responses": responses })
        }
        TemplateOp::EvaluateTemplate => {
            let mut body = json_body(
                json!({ "type": "object", "additionalProperties": false,
                "properties": { "values": { "type": ["object", "null"], "description": "Field id to value: text, a number, true/false for a checkbox, a list for a selection of several. A field not given keeps the value the template holds." } } }),
                Some(json!({ "values": { "T1": 12, "T2": "b" } })),
            );
            body["required"] = json!(false);
            json!({ "parameters": [ template_id() ],
                "description": "Each field bound to an evaluator input (data-radref-system and data-radref-input) gives its value to that input; every system with a bound field is evaluated as POST /api/v1/systems/{slug}/evaluate would. The body may instead be the filled MRRT document (Content-Type: text/html), whose fields' values are read.",
                "requestBody": with_mrrt_body(body),
                "responses": template_responses("200", data_of("TemplateEvaluation"), &["404", "422"]) })
        }
        TemplateOp::UpdateTemplate => json!({ "parameters": [ template_id() ],
            "requestBody": with_mrrt_body(json_body(json!({ "$ref": "#/components/schemas/TemplateUpdate" }), None)),
            "responses": template_responses("200", data_of("Template"), &["404", "409", "422"]) }),
        TemplateOp::DeleteTemplate => json!({ "parameters": [ template_id() ],
            "responses": template_responses("204", Value::Null, &["404"]) }),
        TemplateOp::UseTemplate => json!({ "parameters": [ template_id() ],
            "responses": template_responses("200", data_of("Template"), &["404"]) }),
    }
}

fn webhook_operation(op: WebhookOp) -> Value {
    match op {
        WebhookOp::ListWebhooks => json!({ "parameters": paging_params(20),
            "responses": webhook_responses("200", page_of("Webhook"), &["422", "503"]) }),
        WebhookOp::CreateWebhook => json!({
            "requestBody": json_body(json!({ "$ref": "#/components/schemas/WebhookCreate" }),
                Some(json!({ "url": "https://hooks.example.org/radref", "events": ["report.finalized", "critical_finding.detected"], "secret": "a-long-random-secret-of-yours" }))),
            "responses": webhook_responses("201", data_of("Webhook"), &["409", "422", "503"]) }),
        WebhookOp::GetWebhook => json!({ "parameters": [ webhook_id() ],
            "responses": webhook_responses("200", data_of("Webhook"), &["404", "503"]) }),
        WebhookOp::UpdateWebhook => json!({ "parameters": [ webhook_id() ],
            "requestBody": json_body(json!({ "$ref": "#/components/schemas/WebhookUpdate" }), None),
            "responses": webhook_responses("200", data_of("Webhook"), &["404", "422", "503"]) }),
        WebhookOp::DeleteWebhook => json!({ "parameters": [ webhook_id() ],
            "responses": webhook_responses("204", Value::Null, &["404", "503"]) }),
        WebhookOp::TestWebhook => {
            let mut body = data_of("WebhookEvent");
            body["properties"]["meta"] = json!({ "type": "object", "properties": { "webhook_id": { "type": "string" }, "deliveries": { "type": "integer" } } });
            json!({ "parameters": [ webhook_id() ],
                "requestBody": { "required": false, "content": { "application/json": { "schema": {
                    "type": "object", "additionalProperties": false,
                    "properties": { "type": { "anyOf": [ { "$ref": "#/components/schemas/EventType" }, { "type": "null" } ],
                        "description": "The event type to send; absent or null: report.finalized." } } } } } },
                "responses": webhook_responses("202", body, &["404", "409", "422", "503"]) })
        }
        WebhookOp::ListEventTypes => json!({
            "description": "The catalog of event types, with no key: each type, what it announces, the JSON Schema (2020-12) of the envelope a subscriber receives (`id`, `type`, `created_at`, `data` with the fields the type requires; more data fields may follow), and an example. Publishing checks `data` against the same declaration.",
            "responses": {
                "200": { "description": "Every event type.", "headers": rate_headers(), "content": { "application/json": { "schema": {
                    "type": "object", "required": ["data", "meta"], "properties": {
                        "data": { "type": "array", "items": { "type": "object", "required": ["type", "description", "schema", "example"], "properties": {
                            "type": { "$ref": "#/components/schemas/EventType" }, "description": { "type": "string" },
                            "schema": { "type": "object" }, "example": { "type": "object" } } } },
                        "meta": { "type": "object", "properties": { "total": { "type": "integer" } } } } } } } },
                "429": { "$ref": "#/components/responses/RateLimited" }
            }
        }),
        WebhookOp::RotateWebhookSecret => {
            let body = json!({ "type": "object", "required": ["data", "secret"], "properties": {
                "data": { "$ref": "#/components/schemas/Webhook" },
                "secret": { "type": "string", "description": "The new signing secret (48 hex digits), shown this once; the service keeps it sealed. Standard Webhooks libraries take it as whsec_ and its base64, like every radref secret." } } });
            json!({ "parameters": [ webhook_id() ],
                "description": format!("Replaces the signing secret with a new one made by the service. Until previous_secret_expires_at (overlap_hours, default {}, at most {}; 0 ends it at once) every delivery is signed with both secrets, the new one first: webhook-signature and X-Radref-Signature then hold two space-separated signatures, and a receiver verifying with either secret accepts it. A rotation during an overlap drops the oldest secret.", wh::DEFAULT_OVERLAP_HOURS, wh::MAX_OVERLAP_HOURS),
                "requestBody": { "required": false, "content": { "application/json": { "schema": {
                    "type": "object", "additionalProperties": false,
                    "properties": { "overlap_hours": { "type": ["integer", "null"], "minimum": 0, "maximum": wh::MAX_OVERLAP_HOURS, "default": wh::DEFAULT_OVERLAP_HOURS, "description": "Hours the replaced secret keeps signing; null or absent: the default." } } } } } },
                "responses": webhook_responses("200", body, &["404", "422", "503"]) })
        }
        WebhookOp::ListWebhookDeliveries => {
            let mut params = vec![webhook_id()];
            params.extend(paging_params(20));
            params.push(json!({ "name": "event_id", "in": "query", "required": false, "description": "Only the attempts of this event.", "schema": { "type": "string" } }));
            json!({ "parameters": params,
                "responses": webhook_responses("200", page_of("DeliveryAttempt"), &["404", "422", "503"]) })
        }
        WebhookOp::RedeliverWebhookEvent => json!({
            "parameters": [ webhook_id(), path("event_id", "An event this webhook was sent (evt_ and 32 hex digits).", json!({ "type": "string", "pattern": "^evt_[0-9a-f]{32}$" })) ],
            "responses": webhook_responses("202", json!({ "type": "object", "required": ["data"], "properties": { "data": { "type": "object", "required": ["webhook_id", "event_id", "state"],
                "properties": { "webhook_id": { "type": "string" }, "event_id": { "type": "string" }, "state": { "const": "pending" } } } } }), &["404", "409", "503"]) }),
        WebhookOp::PublishEvent => {
            let mut body = data_of("WebhookEvent");
            body["required"] = json!(["data", "meta"]);
            body["properties"]["meta"] = json!({ "type": "object", "required": ["deliveries"], "properties": {
                "deliveries": { "type": "integer", "description": "Deliveries queued (0 when no active webhook of the publisher takes the type)." },
                "replayed": { "type": "boolean", "description": "Present and true when an earlier request with the same Idempotency-Key published this event." } } });
            let max_key = wh::MAX_IDEMPOTENCY_KEY_CHARS;
            json!({
                "description": "With an Idempotency-Key header, a repeated request returns the event the key first published (202, Idempotent-Replayed: true) instead of publishing again; the same key with a different type or data (a different JSON text, spacing aside) is 409. data that JSON allows but that cannot be read without change (a number beyond a 64-bit float such as 1e400, a lone surrogate escape, nesting deeper than 128 levels) is 422 with details.field = data.",
                "parameters": [ { "name": "Idempotency-Key", "in": "header", "required": false,
                    "description": format!("1 to {max_key} visible ASCII characters, unique per publishing user; makes retries of this call safe."),
                    "schema": { "type": "string", "minLength": 1, "maxLength": max_key, "pattern": "^[!-~]+$" } } ],
                "requestBody": json_body(json!({ "$ref": "#/components/schemas/EventPublish" }),
                    Some(json!({ "type": "report.finalized", "data": { "report_id": "rep_123", "exam_type": "CT chest", "status": "final", "has_critical_finding": false } }))),
                "responses": webhook_responses("202", body, &["409", "422", "503"])
            })
        }
    }
}

/// The components: schemas, security schemes, headers and shared responses.
/// An answer's schema from the components, its references resolved in place, for a reader
/// that has no components to resolve them against (an MCP tool's output schema).
pub(crate) fn answer_schema(name: &str) -> Value {
    fn inline(value: &Value, schemas: &Value) -> Value {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    let name = target.trim_start_matches("#/components/schemas/");
                    return inline(&schemas[name], schemas);
                }
                Value::Object(
                    map.iter()
                        .map(|(k, v)| (k.clone(), inline(v, schemas)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| inline(v, schemas)).collect()),
            other => other.clone(),
        }
    }
    let components = components();
    let schemas = &components["schemas"];
    inline(&schemas[name], schemas)
}

fn components() -> Value {
    let line = json!({
        "type": "object",
        "description": "A clinical line: a paraphrase with its source, locator, consensus and verification.",
        "required": ["text", "citation", "locator", "consensus", "verification"],
        "properties": {
            "text": { "type": "string" },
            "citation": { "type": "string", "description": "A key of the system's references." },
            "locator": { "type": "string", "description": "Section, table, figure or page in that source." },
            "consensus": { "type": "string", "enum": ["guideline", "consensus", "expert-opinion"] },
            "verification": { "type": "string", "enum": ["draft", "verified"] },
            "reviewer": { "type": "string" },
            "reviewed_on": { "type": "string" }
        }
    });
    let currency = json!({
        "type": "object",
        "required": ["effective", "last_reviewed", "supersedes", "superseded_by"],
        "properties": {
            "effective": { "type": "string", "description": "ISO 8601 date (YYYY, YYYY-MM or YYYY-MM-DD)." },
            "last_reviewed": { "type": "string" },
            "supersedes": { "type": "array", "items": { "type": "string" } },
            "superseded_by": { "type": "array", "items": { "type": "string" } }
        }
    });
    let counts = json!({
        "type": "object",
        "properties": {
            "lines": { "type": "integer" }, "draft_lines": { "type": "integer" },
            "verified_lines": { "type": "integer" }, "outcomes": { "type": "integer" },
            "decision_units": { "type": "integer" }, "rules": { "type": "integer" },
            "inputs": { "type": "integer" },
            "examples": { "type": "integer", "description": "Test vectors of the decision units, each evaluated by the build (a mismatch stops it)." }
        }
    });
    let summary = json!({
        "type": "object",
        "required": ["slug", "name", "short_name", "family", "status", "organs", "modalities", "version", "currency"],
        "properties": {
            "slug": { "type": "string", "pattern": "^[a-z0-9-]+$" },
            "name": { "type": "string" },
            "short_name": { "type": "string" },
            "family": { "$ref": "#/components/schemas/Family" },
            "status": { "$ref": "#/components/schemas/Status" },
            "organs": { "type": "array", "items": { "type": "string" } },
            "modalities": { "type": "array", "items": { "type": "string" } },
            "issuer": { "type": "string" },
            "version": { "type": "string" },
            "summary": { "type": "string" },
            "currency": { "$ref": "#/components/schemas/Currency" },
            "counts": { "$ref": "#/components/schemas/Counts" },
            "links": { "type": "object" }
        }
    });
    let schemes: Vec<&str> = crate::corpus::source::CodeScheme::ALL
        .iter()
        .map(|s| s.as_str())
        .collect();
    let codes = json!({ "type": "array", "description": "External codes, each confirmed where it was seen (source: an address, or a repository file at a commit); never guessed.",
        "items": { "type": "object", "required": ["scheme", "code", "display", "source"], "properties": {
            "scheme": { "type": "string", "enum": schemes }, "code": { "type": "string" }, "display": { "type": "string" },
            "source": { "type": "string" },
            "relation": { "type": "string", "enum": ["finding", "related"], "description": "Absent when the code names the same concept; finding: a set describing the finding the system grades; related: a concept beside it." },
            "note": { "type": "string" } } } });
    let detail = json!({
        "allOf": [ { "$ref": "#/components/schemas/SystemSummary" } ],
        "type": "object",
        "required": ["notice", "lineage", "references", "scope", "inputs", "decision_units", "outcomes", "crossrefs", "gaps"],
        "properties": {
            "notice": { "type": "string" },
            "abbreviations": { "type": "array", "items": { "type": "string" } },
            "synonyms": { "type": "array", "items": { "type": "string" } },
            "lineage": { "type": "array", "items": { "type": "object", "required": ["date", "version", "event", "summary"] } },
            "references": { "type": "object", "additionalProperties": { "type": "object", "required": ["authors", "title", "year"] } },
            "scope": { "type": "array", "items": { "$ref": "#/components/schemas/Line" } },
            "inputs": { "type": "array", "items": { "type": "object", "required": ["id", "label", "type"], "properties": {
                "listed": { "type": "boolean", "description": "A multi input whose values a report lists for a finding: grounding reads every value a finding states as its whole list. Absent: false." },
                "named_by": { "type": "array", "items": { "type": "string" }, "description": "For a number input in % or a boolean input about a finding: the phrases a report names it by. Grounding reads a percentage written near one of them, and a boolean true where a finding states one of them, neither ruled out nor hedged. Absent: none." } } } },
            "decision_units": { "type": "array", "items": { "type": "object", "required": ["id", "title", "inputs", "rules"], "properties": {
                "rules": { "type": "array", "items": { "type": "object", "required": ["when", "text", "citation", "locator", "consensus", "verification"], "properties": {
                    "outcome": { "type": "string" }, "result": { "type": "string" },
                    "defers_to": { "type": "array", "items": { "type": "string" }, "description": "Other units of the system that answer the case instead; such a rule has a result, never an outcome." } } } } } } },
            "outcomes": { "type": "array", "items": {
                "type": "object",
                "required": ["code", "label", "definition", "management"],
                "properties": {
                    "code": { "type": "string" }, "label": { "type": "string" },
                    "definition": { "$ref": "#/components/schemas/Line" },
                    "risk": { "$ref": "#/components/schemas/Line" },
                    "management": { "type": "array", "items": { "$ref": "#/components/schemas/Line" } },
                    "codes": codes
                }
            } },
            "codes": codes,
            "variants": { "type": "array", "items": { "type": "object" } },
            "crossrefs": { "type": "array", "items": { "type": "object", "required": ["relation", "note"] } },
            "gaps": { "type": "array", "items": { "type": "object", "required": ["topic", "reason"] } }
        }
    });
    let hit = json!({
        "type": "object",
        "required": ["type", "slug", "system", "label", "score", "why"],
        "properties": {
            "type": { "type": "string", "enum": ["system", "outcome"] },
            "slug": { "type": "string" },
            "system": { "type": "string" },
            "code": { "type": "string" },
            "label": { "type": "string" },
            "score": { "type": "number" },
            "why": { "type": "array", "items": {
                "type": "object",
                "required": ["term", "matched", "match", "field"],
                "properties": {
                    "term": { "type": "string" }, "matched": { "type": "string" },
                    "match": { "type": "string", "enum": ["exact", "prefix", "fuzzy"] },
                    "distance": { "type": "integer" }, "field": { "type": "string" }
                }
            } },
            "links": { "type": "object" }
        }
    });
    let event = json!({
        "type": "object",
        "required": ["id", "date", "slug", "system", "version", "event", "summary"],
        "properties": {
            "id": { "type": "string" }, "date": { "type": "string" }, "slug": { "type": "string" },
            "system": { "type": "string" }, "version": { "type": "string" },
            "event": { "type": "string", "enum": ["published", "updated", "superseded", "retired", "corrected", "added"], "description": "A version event of the system's lineage, or `added`: the day the system joined radref's corpus." },
            "summary": { "type": "string" },
            "citation": { "type": ["object", "null"] },
            "links": { "type": "object" }
        }
    });
    let template_fields = template_fields();
    let mut components = json!({
        "securitySchemes": {
            "bearerAuth": { "type": "http", "scheme": "bearer", "description": "An API key (rr_<id>_<secret>) as a bearer token. Keys are issued by the operator, not publicly." },
            "apiKeyHeader": { "type": "apiKey", "in": "header", "name": "X-API-Key" }
        },
        "schemas": {
            "ContextResponse": {
                "type": "object",
                "required": ["notice", "query", "finding", "systems"],
                "properties": {
                    "notice": { "type": "string" },
                    "query": { "type": "object" },
                    "finding": { "type": "object", "description": "What was read from the text: organs, modalities, sizes_mm, age_years, cues, named_systems (the slugs of systems the text names explicitly, which rank first), and ruled_out: the phrases the text negates, places in the past, asks about or attributes to a relative, each with its assertion, trigger and [start, end) character spans; they pull in no system.",
                        "properties": { "ruled_out": { "type": "array", "items": { "type": "object", "required": ["text", "span", "assertion", "trigger", "trigger_span"],
                            "properties": { "text": { "type": "string" }, "span": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 },
                                "assertion": { "type": "string", "enum": ["negated", "historical", "hypothetical", "family"] }, "trigger": { "type": "string" },
                                "trigger_span": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 } } } } } },
                    "note": { "type": "string", "description": "Present when nothing was asked for." },
                    "cue_references": { "type": "object", "description": "The references the cited lines of `because` point to: by system slug, then reference id, one citation string each.",
                        "additionalProperties": { "type": "object", "additionalProperties": { "type": "string" } } },
                    "setting": { "type": "object", "required": ["settings", "read"], "description": "The report-wide setting (corpus/grounding/lexicon.json, settings), read once and applied to every finding: a cue that lists a setting fires for each finding about its organ wherever the report states it. What the text negates states no setting; what it places in the past does.",
                        "properties": { "settings": { "type": "array", "items": { "type": "string" } },
                            "age_years": { "type": ["number", "null"] }, "sex": { "enum": ["female", "male", null] },
                            "read": { "type": "array", "items": { "type": "object", "required": ["setting", "text", "span"], "properties": {
                                "setting": { "type": "string" }, "text": { "type": "string" },
                                "span": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 } } } } } },
                    "findings": { "type": "array", "description": format!("The text's findings: the sentences of its findings and impression sections (or of a text without headings) that report something a guideline may govern (a measured noun such as nodule, cyst, mass, laceration, or a finding word of the grounding lexicon), each with its section, its assertion and the trigger that decided it, its [start, end) character span and its own systems, best first. Present and possible findings come first (impression first, at most {}, each ranked; past that many, the impression's are kept first, then the findings section's measured ones, a measured noun with a number, then its others, listed in the text's order); then the findings the text rules out (absent or historical, with no system, at most {}). Each grounded finding carries the evaluator inputs of its first system read from its words (each with the span it came from), the inputs still missing (with their definitions) and what the evaluator decides (the cited rule and outcome).", crate::context::findings::MAX_FINDINGS, crate::context::findings::MAX_RULED_OUT_FINDINGS),
                        "items": context_finding_schema() },
                    "more_findings": { "type": "integer", "description": format!("Findings past the most listed per text ({} grounded, {} ruled out), counted, not listed.", crate::context::findings::MAX_FINDINGS, crate::context::findings::MAX_RULED_OUT_FINDINGS) },
                    "withheld_systems": { "type": "array", "description": "With verified=true: systems that match the finding and would have been selected, left out because their entry's status is draft or retired (at most three).",
                        "items": { "type": "object", "required": ["slug", "name", "status", "score", "reason"],
                            "properties": { "slug": { "type": "string" }, "name": { "type": "string" }, "status": { "$ref": "#/components/schemas/Status" }, "score": { "type": "number" }, "reason": { "type": "string" } } } },
                    "systems": { "type": "array", "items": context_system_schema() }
                }
            },
            "Evaluation": evaluation_schema(),
            "Diff": diff_schema(),
            "Rescore": rescore_schema(),
            "Because": { "type": "object", "required": ["cue", "factor"], "description": "A cue (corpus/grounding/cues.json) that weighed on a system's score: its factor (above 1 favours, below 1 disfavours) and the cited corpus line it rests on, or the policy when it only follows the words.",
                "properties": { "cue": { "type": "string" }, "factor": { "type": "number" }, "policy": { "type": "string" },
                    "line": { "type": "object", "required": ["system", "path", "text", "citation", "locator"], "properties": {
                        "system": { "type": "string" }, "path": { "type": "string" }, "text": { "type": "string" },
                        "citation": { "type": "string", "description": "The reference's id in that system: cue_references has it as one citation string." }, "locator": { "type": "string" } } } } },
            "MissingInput": { "type": "object", "required": ["id", "label", "type"], "description": "An evaluator input still needed, with what it takes.",
                "properties": { "id": { "type": "string" }, "label": { "type": "string" },
                    "type": { "type": "string", "enum": ["enum", "multi", "number", "boolean"] },
                    "unit": { "type": "string" }, "values": { "type": "array", "items": { "type": "string" }, "description": "The allowed values (enum and multi)." },
                    "min": { "type": "number" }, "max": { "type": "number" } } },
            "Coverage": { "type": "object", "required": ["totals", "covered", "not_covered"], "properties": {
                "notice": { "type": "string" }, "totals": { "type": "object" },
                "by_family": { "type": "array", "items": { "type": "object" } },
                "by_organ": { "type": "array", "items": { "type": "object" } },
                "covered": { "type": "array", "items": { "type": "object", "required": ["slug", "counts", "gaps"], "properties": {
                    "inputs_not_modelled": { "type": "array", "items": { "type": "string" }, "description": "Guideline inputs the system's decision units do not take yet." },
                    "codes": { "type": "object", "additionalProperties": { "type": "integer" }, "description": "How many external codes the system carries, per scheme." } } } },
                "not_evaluable": { "type": "array", "description": "Systems with no decision units yet (the evaluator cannot be asked), with their gaps: why the content could not be sourced.", "items": { "type": "object", "required": ["slug", "name", "reasons"], "properties": {
                    "slug": { "type": "string" }, "name": { "type": "string" },
                    "reasons": { "type": "array", "items": { "type": "object", "required": ["topic", "reason"], "properties": { "topic": { "type": "string" }, "reason": { "type": "string" } } } } } } },
                "not_covered": { "type": "array", "items": { "type": "object", "required": ["name", "reason"] } } } },
            "Error": { "type": "object", "required": ["error"], "properties": { "error": { "type": "string" } } },
            "DetailedError": {
                "type": "object", "required": ["error"],
                "properties": { "error": { "type": "object", "required": ["code", "message", "details"],
                    "properties": {
                        "code": { "type": "string", "enum": ["bad_request", "unauthorized", "forbidden", "not_found", "method_not_allowed", "conflict", "payload_too_large", "validation_error", "rate_limited", "internal_error", "unavailable"] },
                        "message": { "type": "string" },
                        "details": { "type": "object", "properties": { "field": { "type": "string" }, "existing_template_id": { "type": "string" } } }
                    } } }
            },
            "Template": {
                "type": "object",
                "description": "One of the caller's own templates, with every field.",
                "required": ["owned", "id", "name", "content", "content_text", "tags", "voice_aliases", "is_favorite", "is_public", "usage_count", "created_by", "created_at", "updated_at"],
                "properties": {
                    "owned": { "const": true, "description": "The caller owns this template." },
                    "id": { "type": "string" }, "name": { "type": "string" },
                    "content": { "type": "string", "description": "Sanitised HTML." },
                    "content_text": { "type": "string", "description": "Plain text derived from content; not writable." },
                    "exam_type": { "type": ["string", "null"] }, "modality": { "type": ["string", "null"] },
                    "category": { "type": ["string", "null"] }, "subcategory": { "type": ["string", "null"] },
                    "tags": { "type": "array", "items": { "type": "string" } },
                    "voice_command": { "type": ["string", "null"] },
                    "voice_aliases": { "type": "array", "items": { "type": "string" } },
                    "is_favorite": { "type": "boolean" }, "is_public": { "type": "boolean" },
                    "usage_count": { "type": "integer" }, "last_used_at": { "type": ["string", "null"] },
                    "created_by": { "type": "string" }, "created_at": { "type": "string" }, "updated_at": { "type": "string" }
                }
            },
            "PublicTemplate": {
                "type": "object", "additionalProperties": false,
                "description": format!("Another user's public template, read-only: what a reader needs, without the owner's {}.", tpl::OWNER_ONLY.join(", ")),
                "required": ["owned", "id", "name", "content", "content_text", "tags", "is_public", "created_at", "updated_at"],
                "properties": {
                    "owned": { "const": false, "description": "Another user owns this template." },
                    "id": { "type": "string" }, "name": { "type": "string" },
                    "content": { "type": "string", "description": "Sanitised HTML." },
                    "content_text": { "type": "string" },
                    "exam_type": { "type": ["string", "null"] }, "modality": { "type": ["string", "null"] },
                    "category": { "type": ["string", "null"] }, "subcategory": { "type": ["string", "null"] },
                    "tags": { "type": "array", "items": { "type": "string" } },
                    "is_public": { "const": true },
                    "created_at": { "type": "string" }, "updated_at": { "type": "string" }
                }
            },
            "TemplateView": {
                "description": "The caller's own template in full (owned: true), or another user's public template in the public view (owned: false).",
                "oneOf": [ { "$ref": "#/components/schemas/Template" }, { "$ref": "#/components/schemas/PublicTemplate" } ]
            },
            "TemplateCreate": {
                "type": "object", "additionalProperties": false, "required": ["name", "content"],
                "description": format!("Read-only fields ({}) and unknown fields are refused with 422.", tpl::READ_ONLY.join(", ")),
                "properties": template_fields.clone()
            },
            "TemplateUpdate": {
                "type": "object", "additionalProperties": false,
                "description": "Any subset of the writable fields; only those change.",
                "properties": template_fields
            },
            "JsonRpcMessage": {
                "type": "object",
                "required": ["jsonrpc", "method"],
                "properties": {
                    "jsonrpc": { "const": "2.0" },
                    "id": { "type": ["string", "number"] },
                    "method": { "type": "string" },
                    "params": { "type": "object" }
                }
            },
            "Family": { "type": "string", "enum": ["lexicon", "algorithm", "incidental", "appropriateness"] },
            "Status": { "type": "string", "enum": ["current", "retired", "draft"] },
            "Line": line,
            "Currency": currency,
            "Counts": counts,
            "SystemSummary": summary,
            "SystemDetail": detail,
            "SearchHit": hit,
            "Event": event
        },
        "headers": {
            "X-RateLimit-Limit": { "description": "Requests allowed per window for this client, as this worker isolate counts them. Where deployed, the isolates of a location also share a limiter of the same limit; when it refuses, the 429 carries X-RateLimit-Remaining 0 and Retry-After 60.", "schema": { "type": "integer" } },
            "X-RateLimit-Remaining": { "description": "Requests left in this isolate's current window (0 when the location's shared limiter refused the request).", "schema": { "type": "integer" } },
            "X-RateLimit-Reset": { "description": "Seconds until the window resets.", "schema": { "type": "integer" } },
            "ETag": { "description": "Strong validator derived from the corpus build hash.", "schema": { "type": "string" } },
            "Cache-Control": { "description": "Public caching policy.", "schema": { "type": "string" } },
            "Retry-After": { "description": "Seconds to wait before retrying.", "schema": { "type": "integer" } }
        },
        "responses": {
            "NotModified": { "description": "The client's copy (If-None-Match) is current." },
            "RateLimited": {
                "description": "Rate limit exceeded.",
                "headers": {
                    "Retry-After": { "$ref": "#/components/headers/Retry-After" },
                    "X-RateLimit-Limit": { "$ref": "#/components/headers/X-RateLimit-Limit" },
                    "X-RateLimit-Remaining": { "$ref": "#/components/headers/X-RateLimit-Remaining" },
                    "X-RateLimit-Reset": { "$ref": "#/components/headers/X-RateLimit-Reset" }
                },
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
            }
        }
    });
    // A template's MRRT parts, in the owner's view and the public one.
    for view in ["Template", "PublicTemplate"] {
        if let Some(properties) = components["schemas"][view]["properties"].as_object_mut() {
            properties.insert(
                "metadata".into(),
                json!({ "$ref": "#/components/schemas/MrrtMetadata" }),
            );
            properties.insert(
                "coded_content".into(),
                json!({ "type": "array", "items": { "$ref": "#/components/schemas/CodedEntry" } }),
            );
            properties.insert("fields".into(), json!({ "type": "array", "items": { "$ref": "#/components/schemas/TemplateField" } }));
        }
    }
    for more in [webhook_schemas(), mrrt_schemas()] {
        if let (Some(schemas), Value::Object(more)) = (components["schemas"].as_object_mut(), more)
        {
            schemas.extend(more);
        }
    }
    components
}

/// One finding of a context answer (kept apart from the components so the `json!` macro
/// stays within its recursion limit).
fn context_finding_schema() -> Value {
    json!({ "type": "object", "required": ["text", "span", "section", "assertion", "systems", "inputs", "missing"], "properties": {
                            "text": { "type": "string" },
                            "span": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 },
                            "section": { "enum": ["history", "technique", "comparison", "findings", "impression", null] },
                            "assertion": { "type": "string", "enum": ["present", "possible", "absent", "historical"], "description": "absent: negated, asked about (hypothetical) or about a relative; historical: in the past or resolved; possible: hedged." },
                            "trigger": { "type": "object", "required": ["text", "span", "category"], "description": "The trigger phrase (corpus/grounding/assertions.json) that made the finding possible, absent or historical.",
                                "properties": { "text": { "type": "string" }, "span": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 },
                                    "category": { "type": "string", "enum": ["negated", "possible", "historical", "hypothetical", "family"] } } },
                            "inputs": { "type": "array", "description": "Evaluator inputs of the finding's first system read from its words.",
                                "items": { "type": "object", "required": ["id", "value", "text", "span"], "properties": {
                                    "id": { "type": "string" }, "value": { "anyOf": [ { "type": "string" }, { "type": "number" }, { "type": "boolean" }, { "type": "array", "items": { "type": "string" } } ] },
                                    "text": { "type": "string" }, "span": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 } } } },
                            "missing": { "type": "array", "description": "The inputs that system's evaluator still needs, with their definitions.", "items": { "$ref": "#/components/schemas/MissingInput" } },
                            "evaluation": { "type": "object", "description": "What the finding's first system's evaluator decides from the inputs read (when the system has decision units), and the evaluate link prefilled with them.",
                                "required": ["slug", "decided", "link"], "properties": {
                                "slug": { "type": "string" }, "decided": { "type": "array", "items": { "type": "object", "required": ["unit", "title", "answer"], "properties": {
                                    "unit": { "type": "string" }, "title": { "type": "string" }, "answer": { "type": "string" },
                                    "verification": { "type": ["string", "null"], "enum": ["draft", "verified", null] },
                                    "rule": { "$ref": "#/components/schemas/Line" },
                                    "outcome": { "type": "object", "required": ["code", "label", "definition", "management"], "properties": {
                                        "code": { "type": "string" }, "label": { "type": "string" }, "definition": { "$ref": "#/components/schemas/Line" },
                                        "management": { "type": "array", "items": { "$ref": "#/components/schemas/Line" } } } } } } },
                                "link": { "type": "string" } } },
                            "systems": { "type": "array", "items": { "type": "object", "required": ["slug", "name", "score", "reasons", "because"], "properties": {
                                "slug": { "type": "string" }, "name": { "type": "string" }, "score": { "type": "number" },
                                "reasons": { "type": "array", "items": { "type": "string" } },
                                "because": { "type": "array", "items": { "$ref": "#/components/schemas/Because" } } } } } } })
}

/// One system of a context answer (kept apart from the components so the `json!` macro stays
/// within its recursion limit).
fn context_system_schema() -> Value {
    json!({
        "type": "object",
        "required": ["slug", "name", "family", "status", "why", "scope", "decision_units", "outcomes", "prefilled", "decided", "missing_inputs", "references", "withheld_draft_lines", "links"],
        "properties": {
            "slug": { "type": "string" }, "name": { "type": "string" },
            "family": { "$ref": "#/components/schemas/Family" },
            "status": { "$ref": "#/components/schemas/Status" },
            "why": { "type": "object", "required": ["score", "matched_terms", "reasons", "because"],
                "properties": { "because": { "type": "array", "items": { "$ref": "#/components/schemas/Because" } } } },
            "scope": { "type": "array", "items": { "$ref": "#/components/schemas/Line" } },
            "decision_units": { "type": "array", "items": { "type": "object" } },
            "outcomes": { "type": "array", "items": { "type": "object" } },
            "prefilled": { "type": "object", "description": "The evaluator inputs the finding states, by input id: sizes in the input's unit, the age, enum values stated unambiguously. The evaluate link carries them. A report answered by its findings is read on one finding per system (prefilled_from), never on the whole report, so one finding's size is not another's.",
                "additionalProperties": { "anyOf": [ { "type": "string" }, { "type": "number" }, { "type": "boolean" }, { "type": "array", "items": { "type": "string" } } ] } },
            "prefilled_from": { "type": "array", "items": { "type": "integer", "minimum": 0 }, "minItems": 2, "maxItems": 2,
                "description": "For a report answered by its findings: the [start, end) character span of the finding the inputs were read from (the span of one of findings[]): of the findings that offer this system, the one that states the most of what its evaluator needs, the first such (impression first). The patient's age stated elsewhere in the report is read too. Absent when the whole text was read (a text of one finding, or a system only the request's systems asked for)." },
            "decided": { "type": "array", "description": "The decision units the evaluator decides from the prefilled inputs alone.",
                "items": { "type": "object", "required": ["unit", "title", "answer"],
                    "properties": { "unit": { "type": "string" }, "title": { "type": "string" }, "answer": { "type": "string", "description": "The outcome code and label, or the result." },
                        "verification": { "type": ["string", "null"], "enum": ["draft", "verified", null], "description": "The deciding rule's verification." } } } },
            "missing_inputs": { "type": "array", "description": "The inputs the evaluator still needs (its `missing`) after the prefilled ones, with the ids the evaluate route takes.",
                "items": { "$ref": "#/components/schemas/MissingInput" } },
            "references": { "type": "object", "additionalProperties": { "type": "string" } },
            "withheld_draft_lines": { "type": "integer" },
            "withheld_note": { "type": "string" },
            "links": { "type": "object", "required": ["system", "evaluate"],
                "properties": { "system": { "type": "string" },
                    "evaluate": { "type": "string", "description": "GET /api/v1/systems/{slug}/evaluate with the prefilled inputs as query parameters (percent-encoded); following it gives the evaluation whose missing inputs these are." } } }
        }
    })
}

/// The answer of `/api/v1/systems/{id}/evaluate` (and of the MCP tool `radref_evaluate`).
pub fn evaluation_schema() -> Value {
    let cited = json!({ "type": "object", "required": ["text", "citation", "locator", "consensus", "verification"],
        "properties": { "index": { "type": "integer", "description": "The rule's index within its unit." },
            "text": { "type": "string" }, "citation": { "type": "string" }, "locator": { "type": "string" },
            "consensus": { "type": "string" }, "verification": { "type": "string", "enum": ["draft", "verified"] } } });
    let unit = unit_answer_schema(cited);
    json!({
        "type": "object",
        "required": ["notice", "slug", "system", "inputs", "units", "missing", "references", "links"],
        "properties": {
            "notice": { "type": "string" },
            "slug": { "type": "string" }, "system": { "type": "string" }, "version": { "type": "string" },
            "inputs": { "type": "object", "description": "The inputs as read." },
            "missing": { "type": "array", "items": { "type": "string" }, "description": "Every input some unit still needs." },
            "references": { "type": "object", "additionalProperties": { "type": "object", "required": ["authors", "title", "year"] } },
            "links": { "type": "object", "required": ["self", "system"], "properties": { "self": { "type": "string", "description": "The shareable GET link of these inputs." }, "system": { "type": "string" } } },
            "units": { "type": "array", "items": unit }
        }
    })
}

fn version_ref_schema() -> Value {
    json!({ "type": "object", "required": ["slug", "name", "version", "status", "effective", "link"],
        "properties": { "slug": { "type": "string" }, "name": { "type": "string" }, "version": { "type": "string" },
            "status": { "type": "string" }, "effective": { "type": "string" }, "link": { "type": "string" } } })
}

fn cited_schema() -> Value {
    json!({ "type": "object", "required": ["text", "citation", "locator", "consensus", "verification"],
        "properties": { "index": { "type": "integer", "description": "The rule's index within its unit." },
            "text": { "type": "string" }, "citation": { "type": "string", "description": "A reference id of that side's system (references.from or references.to)." }, "locator": { "type": "string" },
            "consensus": { "type": "string" }, "verification": { "type": "string", "enum": ["draft", "verified"] } } })
}

/// The answer of a diff.
pub fn diff_schema() -> Value {
    let kinds: Vec<&str> = crate::corpus::diff::Kind::ALL
        .iter()
        .map(|k| k.as_str())
        .collect();
    json!({
        "type": "object",
        "required": ["notice", "from", "to", "direction", "changes", "counts", "announced", "references", "links"],
        "properties": {
            "notice": { "type": "string" },
            "from": version_ref_schema(), "to": version_ref_schema(),
            "direction": { "type": "string", "enum": ["forward", "backward"], "description": "forward when `from` is the earlier version." },
            "correspondence": cited_schema(),
            "changes": { "type": "array", "items": { "type": "object", "required": ["kind", "subject", "summary", "from", "to"],
                "properties": {
                    "kind": { "type": "string", "enum": kinds },
                    "subject": { "type": "string", "description": "The input id, unit id or category code concerned (the `from` side's)." },
                    "unit": { "type": "string", "description": "The decision unit of a rule, threshold or result change." },
                    "summary": { "type": "string" },
                    "added": { "type": "array", "items": { "type": "string" }, "description": "Values, codes or intervals only the `to` side has." },
                    "removed": { "type": "array", "items": { "type": "string" }, "description": "Values, codes or intervals only the `from` side has." },
                    "thresholds": { "type": "array", "items": { "type": "object", "required": ["var", "op", "from", "to"],
                        "properties": { "var": { "type": "string" }, "op": { "type": "string" }, "from": {}, "to": {} } } },
                    "from": { "type": "array", "items": cited_schema() },
                    "to": { "type": "array", "items": cited_schema() } } } },
            "counts": { "type": "object", "additionalProperties": { "type": "integer" } },
            "announced": { "type": "array", "items": { "type": "object", "required": ["date", "version", "event", "summary"],
                "properties": { "date": { "type": "string" }, "version": { "type": "string" }, "event": { "type": "string" }, "summary": { "type": "string" }, "citation": { "type": "string" } } } },
            "references": { "type": "object", "required": ["from", "to"], "properties": {
                "from": { "type": "object", "additionalProperties": { "type": "string" } },
                "to": { "type": "object", "additionalProperties": { "type": "string" } } } },
            "links": version_links_schema()
        }
    })
}

fn version_links_schema() -> Value {
    json!({ "type": "object", "required": ["self", "diff", "rescore", "reverse"], "properties": {
        "self": { "type": "string" }, "diff": { "type": "string" }, "rescore": { "type": "string" },
        "reverse": { "type": "string", "description": "The diff the other way round." } } })
}

/// The answer of a re-score.
pub fn rescore_schema() -> Value {
    let side = json!({ "type": ["object", "null"], "required": ["status"], "properties": {
        "status": { "type": "string", "enum": ["decided", "needs_inputs", "not_reached"] },
        "answer": { "type": "string" }, "label": { "type": "string" }, "result": { "type": "string" },
        "rule": cited_schema(), "needs": { "type": "array", "items": { "type": "string" } } } });
    let both = |items: Value| {
        json!({ "type": "object", "required": ["from", "to"], "properties": {
        "from": { "type": "array", "items": items }, "to": { "type": "array", "items": items } } })
    };
    let rescored = json!({
        "units": { "type": "array", "items": { "type": "object", "required": ["unit", "title", "from", "to", "moved"],
            "properties": { "unit": { "type": "string" }, "title": { "type": "string" }, "from": side, "to": side, "moved": { "type": "boolean" } } } },
        "needs": both(json!({ "type": "string" })),
        "set_aside": both(json!({ "type": "object", "required": ["input", "reason"],
            "properties": { "input": { "type": "string" }, "reason": { "type": "string" } } })),
        "moved": { "description": "One input set: whether any unit moved (boolean). A list: the movements, most cases first.",
            "oneOf": [ { "type": "boolean" }, { "type": "array", "items": { "type": "object", "required": ["unit", "from", "to", "count"],
                "properties": { "unit": { "type": "string" }, "from": { "type": "string" }, "to": { "type": "string" }, "count": { "type": "integer" } } } } ] }
    });
    let mut properties = json!({
        "notice": { "type": "string" }, "direction": { "type": "string", "enum": ["forward", "backward"] },
        "cases": { "type": "array", "items": { "type": "object", "required": ["index"], "properties": {
            "index": { "type": "integer" },
            "error": { "type": "object", "required": ["field", "message"], "properties": { "field": { "type": "string" }, "message": { "type": "string" } } } },
            "description": "Each case: the fields of a one-set answer (units, moved, needs, set_aside), or the error that refused its inputs." } },
        "counts": { "type": "object", "required": ["cases", "moved", "unchanged", "refused"], "properties": {
            "cases": { "type": "integer" }, "moved": { "type": "integer" }, "unchanged": { "type": "integer" }, "refused": { "type": "integer" } } },
        "links": version_links_schema()
    });
    for (k, v) in rescored.as_object().into_iter().flatten() {
        properties[k] = v.clone();
    }
    properties["from"] = version_ref_schema();
    properties["to"] = version_ref_schema();
    json!({ "type": "object", "required": ["notice", "from", "to", "direction", "links"], "properties": properties })
}

/// One unit of an evaluation.
fn unit_answer_schema(cited: Value) -> Value {
    json!({
        "type": "object",
        "required": ["id", "title", "status", "trace"],
        "properties": {
            "id": { "type": "string" }, "title": { "type": "string" },
            "status": { "type": "string", "enum": ["decided", "needs_inputs", "not_reached"] },
            "answer": { "type": "string", "description": "The outcome code, else the result: what a derived input of a later unit takes." },
            "reason": { "type": "string", "description": "Why the unit was not reached." },
            "score": { "type": "object", "required": ["id", "label", "value", "points"], "properties": {
                "id": { "type": "string" }, "label": { "type": "string" }, "value": { "type": ["number", "null"] },
                "points": { "type": "array", "items": { "type": "object", "required": ["input", "value", "points"] } },
                "missing": { "type": "array", "items": { "type": "string" } } } },
            "rule": cited.clone(),
            "outcome": { "type": "object", "required": ["code", "label", "definition", "management"] },
            "result": { "type": "string" },
            "defers_to": { "type": "array", "items": { "type": "string" }, "description": "The units that answer the case instead, when the deciding rule defers to them (\"See solid nodules\"): this unit decided only that it does not apply. Grounded context and FHIR Observations leave such a unit out." },
            "missing": { "type": "array", "items": { "type": "object", "required": ["id", "label", "type"] } },
            "derived": { "type": "array", "items": { "type": "object", "required": ["input", "from", "value", "given"] } },
            "trace": { "type": "array", "items": { "type": "object", "required": ["rule", "holds"], "properties": {
                "rule": { "type": "integer" }, "holds": { "type": "string", "enum": ["true", "false", "unknown"] } } } },
            "changes": { "type": "array", "items": { "type": "object", "required": ["input", "at", "side", "answer", "note", "rule"], "properties": {
                "input": { "type": "string" }, "at": { "type": "number" },
                "side": { "type": "string", "enum": ["at_or_above", "above", "below", "at_or_below"] },
                "answer": { "type": "string" }, "note": { "type": "string" }, "rule": cited } } }
        }
    })
}

/// The schemas of MRRT templates: metadata, coded content, fields and a filled template's
/// evaluation.
fn mrrt_schemas() -> Value {
    json!({
            "MrrtCode": {
                "type": "object", "additionalProperties": false, "required": ["scheme", "value", "meaning"],
                "properties": { "scheme": { "type": "string", "minLength": 1 }, "value": { "type": "string", "minLength": 1 }, "meaning": { "type": "string", "minLength": 1 } }
            },
            "CodedEntry": {
                "type": "object", "additionalProperties": false, "required": ["id", "codes"],
                "description": "MRRT coded_content entry: the codes of one element of the content, named by its id (ORIGTXT).",
                "properties": { "id": { "type": "string" }, "codes": { "type": "array", "minItems": 1, "maxItems": mrrt::MAX_ENTRY_CODES, "items": { "$ref": "#/components/schemas/MrrtCode" } } }
            },
            "MrrtMetadata": {
                "type": "object", "additionalProperties": false,
                "description": "IHE MRRT metadata: Dublin Core elements (dcterms.*) and template_attributes. identifier (default urn:radref:template:{id}), date (default the creation date) and language (default en) are filled in on write; a code's scheme among RADLEX, SNOMEDCT and LOINC is declared in coding_schemes with its OID when the template does not declare it.",
                "properties": {
                    "identifier": { "type": ["string", "null"] }, "description": { "type": ["string", "null"] },
                    "publisher": { "type": ["string", "null"] },
                    "creator": { "type": "array", "items": { "type": "string" } }, "contributor": { "type": "array", "items": { "type": "string" } },
                    "rights": { "type": ["string", "null"] }, "license": { "type": ["string", "null"] },
                    "date": { "type": ["string", "null"], "description": "YYYY-MM-DD, or a date and time." },
                    "language": { "type": ["string", "null"] },
                    "status": { "enum": [ mrrt::STATUSES[0], mrrt::STATUSES[1], mrrt::STATUSES[2], null ] },
                    "top_level": { "type": ["boolean", "null"] },
                    "coding_schemes": { "type": "array", "items": { "type": "object", "additionalProperties": false, "required": ["name", "designator"], "properties": { "name": { "type": "string" }, "designator": { "type": "string" } } } },
                    "terms": { "type": "array", "items": { "type": "object", "additionalProperties": false, "required": ["code"], "properties": { "type": { "type": ["string", "null"] }, "code": { "$ref": "#/components/schemas/MrrtCode" } } } }
                }
            },
            "TemplateField": {
                "type": "object", "required": ["id", "type", "value", "multiple", "codes", "binding"],
                "description": "A field of the content (an input, select or textarea with an id); read-only, derived from the content and coded_content.",
                "properties": {
                    "id": { "type": "string" },
                    "type": { "type": "string", "description": "data-field-type, or what the element implies: TEXT, NUMBER, DATE, TIME, CHECKBOX, SELECTION." },
                    "name": { "type": ["string", "null"] }, "label": { "type": ["string", "null"] },
                    "section": { "type": ["string", "null"] }, "units": { "type": ["string", "null"] },
                    "value": { "description": "What the field holds: text, true/false for a checkbox, the chosen value of a selection (a list when it takes several), or null." },
                    "options": { "type": "array", "items": { "type": "object", "required": ["value", "label"], "properties": { "value": { "type": "string" }, "label": { "type": "string" } } } },
                    "multiple": { "type": "boolean" },
                    "codes": { "type": "array", "items": { "$ref": "#/components/schemas/MrrtCode" } },
                    "binding": { "oneOf": [ { "type": "null" }, { "type": "object", "required": ["system", "input"], "properties": { "system": { "type": "string" }, "input": { "type": "string" } } } ],
                        "description": "The system and evaluator input the field fills (data-radref-system, data-radref-input)." }
                }
            },
            "TemplateEvaluation": {
                "type": "object", "required": ["template_id", "values", "evaluations"],
                "properties": {
                    "template_id": { "type": "string" },
                    "values": { "type": "object", "description": "Field id to the value given to its input." },
                    "evaluations": { "type": "array", "description": "One evaluation per system with a bound field, as POST /api/v1/systems/{slug}/evaluate answers.", "items": { "type": "object" } }
                }
            }
    })
}

/// The writable fields of a template, with the limits `templates` enforces.
fn template_fields() -> Value {
    let label = json!({ "type": ["string", "null"], "maxLength": tpl::MAX_LABEL_CHARS });
    let voice =
        json!({ "type": "string", "maxLength": tpl::MAX_VOICE_CHARS, "pattern": VOICE_PATTERN });
    json!({
        "name": { "type": "string", "minLength": 1, "maxLength": tpl::MAX_NAME_CHARS, "pattern": "\\S" },
        "content": { "type": "string", "minLength": 1, "maxLength": tpl::MAX_CONTENT_CHARS, "pattern": "\\S", "description": "HTML; sanitised on write (an allowlist of formatting elements and the sections, headers, labels and fields of an MRRT template body, each with a few checked attributes; no script, style, event handlers, styles or links); what survives is stored. A field (input, select, textarea with an id) may carry data-radref-system and data-radref-input to fill an evaluator input." },
        "exam_type": label, "modality": label, "category": label, "subcategory": label,
        "tags": { "type": ["array", "null"], "maxItems": tpl::MAX_TAGS, "items": { "type": "string", "minLength": 1, "maxLength": tpl::MAX_TAG_CHARS, "pattern": "\\S" } },
        "voice_command": { "description": "Primary dictation command, unique among the caller's commands and aliases after normalisation; null or \"\" clears it.",
            "anyOf": [ { "type": "string", "maxLength": tpl::MAX_VOICE_CHARS, "pattern": VOICE_PATTERN }, { "const": "" }, { "type": "null" } ] },
        "voice_aliases": { "type": ["array", "null"], "maxItems": tpl::MAX_ALIASES, "items": voice },
        "is_favorite": { "type": "boolean" }, "is_public": { "type": "boolean" },
        "metadata": { "anyOf": [ { "$ref": "#/components/schemas/MrrtMetadata" }, { "type": "null" } ] },
        "coded_content": { "type": ["array", "null"], "maxItems": mrrt::MAX_CODED_ENTRIES, "items": { "$ref": "#/components/schemas/CodedEntry" },
            "description": "Each entry's id must be an element id of the content." }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_is_documented_under_its_path_and_method() {
        let doc = document();
        for e in ENDPOINTS {
            let op = &doc["paths"][e.path][e.method.as_str().to_ascii_lowercase()];
            assert_eq!(op["operationId"], e.op.id(), "{} {}", e.method, e.path);
            assert!(op["responses"].is_object(), "{} {}", e.method, e.path);
            let keyed = matches!(e.access, Access::Key(_));
            assert_eq!(op["security"].is_array(), keyed, "{} {}", e.method, e.path);
        }
        let operations: usize = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|item| item.as_object().unwrap().len())
            .sum();
        assert_eq!(operations, ENDPOINTS.len());
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(doc["info"]["version"], API_VERSION);
    }

    #[test]
    fn path_parameters_are_declared_for_every_templated_segment() {
        let doc = document();
        for e in ENDPOINTS {
            let op = &doc["paths"][e.path][e.method.as_str().to_ascii_lowercase()];
            for name in e
                .path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            {
                let declared = op["parameters"]
                    .as_array()
                    .is_some_and(|ps| ps.iter().any(|p| p["in"] == "path" && p["name"] == name));
                assert!(declared, "{} {}: {{{name}}}", e.method, e.path);
            }
        }
    }

    #[test]
    fn schema_limits_are_the_enforced_constants() {
        let doc = document();
        let post = &doc["paths"]["/api/v1/context"]["post"];
        let text =
            &post["requestBody"]["content"]["application/json"]["schema"]["properties"]["text"];
        assert_eq!(text["maxLength"], crate::context::MAX_TEXT_CHARS);
        let name = &doc["components"]["schemas"]["TemplateCreate"]["properties"]["name"];
        assert_eq!(name["maxLength"], tpl::MAX_NAME_CHARS);
        let url = &doc["components"]["schemas"]["WebhookCreate"]["properties"]["url"];
        assert_eq!(url["maxLength"], wh::MAX_URL_CHARS);
    }
}
