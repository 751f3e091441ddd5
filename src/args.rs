//! The readers of the read operations' arguments, shared by both doors.
//!
//! The HTTP routes and the MCP tools hand their arguments (a query string, a JSON body, a
//! tool call's arguments) to the same reader, which turns them into the operation's typed
//! query; so the same bad value gets the same refusal through either door, naming the argument
//! as that door calls it (`schema` declares both names).

use crate::context::ContextQuery;
use crate::corpus::compiled::{self, Logic, SYSTEMS};
use crate::error::ApiError;
use crate::feature::FeatureError;
use crate::input::{integer, integral, string_list, Params, Refusal};
use crate::routes::{CorpusOp, Op};
use crate::schema;
use crate::search::{self, SearchQuery};
use serde_json::{Map, Value};

/// Which door asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Door {
    Http,
    Tool,
}

/// The name a door uses for the argument of `op` that HTTP calls `http_name`.
fn name(op: Op, http_name: &'static str, door: Door) -> &'static str {
    let arg = schema::arguments(op).iter().find(|a| a.name == http_name);
    match (door, arg) {
        (Door::Tool, Some(a)) => a.tool.unwrap_or(http_name),
        _ => http_name,
    }
}

/// Refuses an argument the operation does not declare for this door.
pub fn reject_unknown(args: &Map<String, Value>, allowed: &[&str]) -> Result<(), ApiError> {
    match args.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ApiError::bad_param(
            k,
            format!("unknown argument '{k}'; allowed: {}", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

/// A search question: the text (`q`, or the tool's `query`) and `limit`.
pub fn search(params: &impl Params, door: Door) -> Result<SearchQuery, ApiError> {
    let op = Op::Corpus(CorpusOp::SearchCorpus);
    let field = name(op, "q", door);
    let text = params.get(field)?;
    let limit = integer(
        params,
        "limit",
        search::DEFAULT_LIMIT as i64,
        (1, search::MAX_LIMIT as i64),
        Refusal::BadRequest,
    )? as usize;
    Ok(SearchQuery::new(field, text, limit)?)
}

/// The system of a slug (the route's `id`, the tool's `slug`).
pub fn system(op: Op, slug: &str, door: Door) -> Result<usize, FeatureError> {
    SYSTEMS
        .iter()
        .position(|s| s.slug == slug)
        .ok_or_else(|| search::unknown_slug(name(op, "id", door), slug))
}

/// The logic of the system of a slug, for an evaluation.
pub fn logic(op: Op, slug: &str, door: Door) -> Result<&'static Logic, FeatureError> {
    system(op, slug, door).and_then(|i| {
        compiled::logic(i).ok_or_else(|| search::unknown_slug(name(op, "id", door), slug))
    })
}

/// Two versions of one guideline (the route's `id` and `other`, the tool's `slug` and
/// `other`).
pub fn versions(
    op: Op,
    slug: &str,
    other: &str,
    door: Door,
) -> Result<crate::versions::Pair, FeatureError> {
    crate::versions::pair(slug, other, (name(op, "id", door), name(op, "other", door)))
}

/// The format of a diff or a re-score: `json` (default) or `markdown`.
pub fn versions_format(value: Option<&str>) -> Result<bool, FeatureError> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("json") => Ok(false),
        Some("markdown") => Ok(true),
        Some(other) => Err(FeatureError::argument(
            "format",
            format!(
                "unknown format '{other}'; allowed: {}",
                crate::versions::FORMATS.join(", ")
            ),
        )),
    }
}

/// A text field of a JSON object: a string, or absent or null.
fn text(body: &Map<String, Value>, field: &str) -> Result<Option<String>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::bad_param(
            field,
            format!("'{field}' must be a string"),
        )),
    }
}

/// A grounding question from a JSON object: a POST body, or the tool's arguments. `allowed`
/// are the fields the door takes (the tool has no `format`: it answers both). `null` means the
/// same as leaving a field out.
/// An integer field of a body (absent or null: `None`); its range is checked by the operation,
/// and a value of another type is named with the range it takes.
fn body_integer(
    body: &Map<String, Value>,
    key: &str,
    min: usize,
    max: usize,
) -> Result<Option<i64>, ApiError> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_number().and_then(integral).map(Some).ok_or_else(|| {
            ApiError::bad_param(
                key,
                format!("'{key}' must be an integer from {min} to {max}; got {v}"),
            )
        }),
    }
}

pub fn ground(body: &Map<String, Value>, allowed: &[&str]) -> Result<ContextQuery, ApiError> {
    reject_unknown(body, allowed)?;
    let systems = string_list(
        body.get("systems").filter(|v| !v.is_null()),
        "systems",
        "an array of slugs",
    )?;
    let limit = body_integer(body, "limit", 1, crate::context::MAX_LIMIT)?;
    let verified =
        match body.get("verified") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_bool().ok_or_else(|| {
                ApiError::bad_param("verified", "'verified' must be true or false")
            })?),
        };
    let max_tokens = body_integer(
        body,
        "max_tokens",
        crate::context::MIN_MAX_TOKENS,
        crate::context::MAX_MAX_TOKENS,
    )?;
    Ok(ContextQuery::new(
        text(body, "text")?,
        systems,
        text(body, "organ")?,
        limit,
        text(body, "format")?,
        verified,
    )?
    .options(text(body, "detail")?, max_tokens)?)
}
