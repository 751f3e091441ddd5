//! `GET|POST /api/v1/context`: grounded context for a finding (a key with the `context`
//! scope). The query string and the JSON body are read here into one [`ContextQuery`]; the
//! ranking and rendering live in `context`.

use crate::args;
use crate::call::Call;
use crate::context::{self as ctx, ContextQuery, Format};
use crate::error::ApiError;
use crate::http::{Request, Response};
use crate::input::{boolean, integer, json_bytes, Params, Refusal};
use crate::knowledge::KNOWLEDGE;
use crate::routes::{ContextOp, Op};
use crate::schema;
use crate::services::Services;

/// Runs a context operation.
pub fn dispatch<S: Services>(op: ContextOp, call: &Call<'_, S>) -> Result<Response, ApiError> {
    let query = match op {
        ContextOp::GetGroundedContext => from_query(call.request)?,
        ContextOp::PostGroundedContext => from_body(call.request)?,
    };
    // The request spent one unit on arrival; a long finding weighs what it costs.
    call.charge(ctx::cost(&query.text) - 1)?;
    let answer = ctx::ground(&KNOWLEDGE, &query);
    let response = match query.format {
        Format::Json => Response::json(200, &answer),
        Format::Markdown => super::markdown(ctx::markdown(&answer)),
    };
    // Keyed answers are for the caller only.
    Ok(response.with_header("cache-control", "private, no-store"))
}

fn limit_error(shown: impl std::fmt::Display) -> ApiError {
    ApiError::bad_param(
        "limit",
        format!(
            "'limit' must be an integer from 1 to {}; got {shown}",
            ctx::MAX_LIMIT
        ),
    )
}

/// The POST body: a JSON object, read as the `radref_ground` tool's arguments are.
fn from_body(request: &Request) -> Result<ContextQuery, ApiError> {
    let body: serde_json::Value = serde_json::from_slice(json_bytes(request)?)
        .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))?;
    let serde_json::Value::Object(body) = body else {
        return Err(ApiError::bad_request(
            "the body must be a JSON object {text?, systems?, organ?, limit?, format?, verified?, detail?, max_tokens?}",
        ));
    };
    let op = Op::Context(ContextOp::PostGroundedContext);
    args::ground(&body, &schema::body_names(op))
}

/// The query string of a GET: `q` is capped at `context::MAX_QUERY_CHARS`.
fn from_query(request: &Request) -> Result<ContextQuery, ApiError> {
    let limit = match request.get("limit")? {
        None => None,
        Some(v) => Some(
            v.trim()
                .parse::<i64>()
                .map_err(|_| limit_error(format!("'{v}'")))?,
        ),
    };
    // An empty scalar parameter counts as absent, but `systems=` is refused: in a query, an
    // empty list and a list of one empty entry read the same, so the schema asks for at least
    // one slug (`minItems`), and the core refuses the empty entry.
    let systems = match request.get("systems")? {
        Some(s) => Some(s.split(',').map(|x| x.trim().to_string()).collect()),
        None if request.query_pairs().iter().any(|(k, _)| k == "systems") => {
            Some(vec![String::new()])
        }
        None => None,
    };
    let q = request.get("q")?;
    if q.as_ref()
        .is_some_and(|q| q.chars().count() > ctx::MAX_QUERY_CHARS)
    {
        return Err(ApiError::bad_param(
            "q",
            format!(
                "'q' is longer than {} characters; send longer text as 'text' in a POST body",
                ctx::MAX_QUERY_CHARS
            ),
        ));
    }
    let max_tokens = integer(
        request,
        "max_tokens",
        ctx::DEFAULT_MAX_TOKENS as i64,
        (ctx::MIN_MAX_TOKENS as i64, ctx::MAX_MAX_TOKENS as i64),
        Refusal::BadRequest,
    )?;
    Ok(ContextQuery::new(
        q,
        systems,
        request.get("organ")?,
        limit,
        request.get("format")?,
        boolean(request, "verified", Refusal::BadRequest)?,
    )?
    .options(request.get("detail")?, Some(max_tokens))?)
}
