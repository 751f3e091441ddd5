//! The template routes under `/api/v1/templates` (a key with the `templates` scope): one
//! function per endpoint, reading the request and shaping the answer. The rules and the SQL
//! live in `templates`.

use crate::call::Call;
use crate::error::ApiError;
use crate::http::{Request, Response};
use crate::input::{boolean, json_object, page, paging, BodyRule, Params, Refusal};
use crate::mrrt;
use crate::routes::TemplateOp;
use crate::services::Services;
use crate::templates::{self, ListQuery, Template, SORTS};
use serde_json::json;

/// A create or update body: JSON, only writable fields.
const BODY: BodyRule = BodyRule {
    writable: templates::WRITABLE,
    read_only: templates::READ_ONLY,
    optional: false,
};

/// The columns a list may be filtered on by equality.
const LABELS: [&str; 3] = ["exam_type", "modality", "category"];

/// Runs a template operation.
pub async fn dispatch<S: Services>(
    op: TemplateOp,
    call: &Call<'_, S>,
) -> Result<Response, ApiError> {
    match op {
        TemplateOp::ListTemplates => list(call).await,
        TemplateOp::CreateTemplate => create(call).await,
        TemplateOp::ResolveVoiceCommand => voice(call).await,
        TemplateOp::GetTemplate => get(call).await,
        TemplateOp::UpdateTemplate => update(call).await,
        TemplateOp::DeleteTemplate => delete(call).await,
        TemplateOp::UseTemplate => record_use(call).await,
        TemplateOp::EvaluateTemplate => evaluate(call).await,
    }
}

/// Whether the body is an MRRT document (`Content-Type: text/html`, any parameters).
fn is_html(request: &Request) -> bool {
    request
        .header("content-type")
        .and_then(|c| c.split(';').next())
        .is_some_and(|c| c.trim().eq_ignore_ascii_case("text/html"))
}

/// The body as text, when it is HTML.
fn html_body(request: &Request) -> Result<&str, ApiError> {
    std::str::from_utf8(&request.body)
        .map_err(|_| ApiError::bad_request("the HTML body is not UTF-8 text"))
}

/// A create or update body: the JSON fields, or those of an MRRT document (400 naming what
/// makes it not one).
fn body_fields(request: &Request) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    if is_html(request) {
        let doc = mrrt::Document::parse(html_body(request)?)
            .map_err(|e| ApiError::bad_param("body", format!("not a valid MRRT template: {e}")))?;
        Ok(templates::fields_of(doc))
    } else {
        json_object(request, BODY)
    }
}

/// Whether the client prefers an MRRT document to JSON: `text/html` ranks above
/// `application/json` in its `Accept` header (by quality, then order). JSON is the default.
fn wants_html(request: &Request) -> bool {
    let Some(accept) = request.header("accept") else {
        return false;
    };
    let rank = |media: &str| -> Option<(u32, usize)> {
        accept.split(',').enumerate().find_map(|(i, range)| {
            let mut parts = range.split(';');
            let name = parts.next()?.trim();
            if !name.eq_ignore_ascii_case(media) {
                return None;
            }
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            Some(((q.clamp(0.0, 1.0) * 1000.0) as u32, i))
        })
    };
    match (rank("text/html"), rank("application/json")) {
        (Some((0, _)), _) | (None, _) => false,
        (Some(_), None) => true,
        (Some((qh, ih)), Some((qj, ij))) => qh > qj || (qh == qj && ih < ij),
    }
}

/// The owner's full view of one of their templates.
fn data(status: u16, t: &Template) -> Response {
    Response::json(status, &json!({ "data": t.to_json() }))
}

/// `GET /templates`
async fn list<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let query = list_query(call.request)?;
    let who = call.who()?;
    let (items, total) = templates::list(call.services, who, &query).await?;
    // With scope=public, another user's templates appear in the public view.
    let items = items.iter().map(|t| t.view(who)).collect();
    Ok(page(items, total, query.limit, query.offset))
}

/// Reads and checks the list's query parameters (422 naming the one at fault).
fn list_query(params: &impl Params) -> Result<ListQuery, ApiError> {
    let (limit, offset) = paging(params, 50)?;
    let sort = params.get("sort")?.unwrap_or_else(|| "usage_count".into());
    let sort = SORTS.iter().copied().find(|s| *s == sort).ok_or_else(|| {
        ApiError::validation(
            "sort",
            format!("'sort' must be one of {}", SORTS.join(", ")),
        )
    })?;
    let descending = match params.get("order")?.as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(_) => return Err(ApiError::validation("order", "'order' must be asc or desc")),
    };
    let public = match params.get("scope")?.as_deref() {
        None | Some("mine") => false,
        Some("public") => true,
        Some(_) => {
            return Err(ApiError::validation(
                "scope",
                "'scope' must be mine or public",
            ))
        }
    };
    let mut labels = Vec::new();
    for column in LABELS {
        if let Some(v) = params.get(column)? {
            labels.push((column, v.trim().to_string()));
        }
    }
    let tags: Vec<String> = params
        .get("tags")?
        .map(|t| {
            t.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if tags.len() > templates::MAX_FILTER_TAGS {
        return Err(ApiError::validation(
            "tags",
            format!(
                "'tags' may name at most {} tags",
                templates::MAX_FILTER_TAGS
            ),
        ));
    }
    Ok(ListQuery {
        public,
        labels,
        tags,
        search: params.get("search")?.map(|s| s.trim().to_string()),
        favorites_only: boolean(params, "favorites_only", Refusal::Validation)?.unwrap_or(false),
        sort,
        descending,
        limit,
        offset,
    })
}

/// `POST /templates`: JSON, or an MRRT document.
async fn create<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let fields = body_fields(call.request)?;
    let t = templates::create(call.services, call.who()?, &fields).await?;
    Ok(data(201, &t).with_header("location", format!("/api/v1/templates/{}", t.id)))
}

/// `GET /templates/voice?command=`
async fn voice<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let command = call.request.get("command")?.unwrap_or_default();
    let t = templates::by_voice(call.services, call.who()?, &command).await?;
    Ok(data(200, &t))
}

/// `GET /templates/{id}`: JSON, or the MRRT document when the client asks for HTML.
async fn get<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let who = call.who()?;
    let t = templates::readable(call.services, who, call.path("id")).await?;
    let response = if wants_html(call.request) {
        Response::bytes(200, mrrt::MEDIA_TYPE, t.to_mrrt().to_html().into_bytes())
    } else {
        Response::json(200, &json!({ "data": t.view(who) }))
    };
    Ok(response.with_header("vary", "Accept"))
}

/// `PUT /templates/{id}`
async fn update<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let fields = body_fields(call.request)?;
    let t = templates::update(call.services, call.who()?, call.path("id"), &fields).await?;
    Ok(data(200, &t))
}

/// `DELETE /templates/{id}`
async fn delete<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    templates::delete(call.services, call.who()?, call.path("id")).await?;
    Ok(Response::empty(204))
}

/// `POST /templates/{id}/use`
async fn record_use<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let t = templates::record_use(call.services, call.who()?, call.path("id")).await?;
    Ok(data(200, &t))
}

/// `POST /templates/{id}/evaluate`: the filled values as JSON `{"values": {field id: value}}`
/// (an empty body takes the values the template holds), or the filled MRRT document.
async fn evaluate<S: Services>(call: &Call<'_, S>) -> Result<Response, ApiError> {
    let values = if is_html(call.request) {
        mrrt::filled_values(html_body(call.request)?)
    } else {
        let mut body = json_object(call.request, EVALUATE_BODY)?;
        match body.remove("values") {
            None | Some(serde_json::Value::Null) => serde_json::Map::new(),
            Some(serde_json::Value::Object(map)) => map,
            Some(_) => {
                return Err(ApiError::validation(
                    "values",
                    "'values' must be an object of field ids to values",
                ))
            }
        }
    };
    let t = templates::readable(call.services, call.who()?, call.path("id")).await?;
    let answer = templates::evaluate_filled(&t, &values)?;
    Ok(Response::json(200, &json!({ "data": answer })))
}

/// An evaluate body: optional, one field.
const EVALUATE_BODY: BodyRule = BodyRule {
    writable: &["values"],
    read_only: &[],
    optional: true,
};
