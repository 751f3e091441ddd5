//! Reading request input: query parameters, tool arguments, paging and JSON bodies.
//!
//! One rule per kind of value, used by every route: a parameter given twice is refused, an
//! empty value (what a form sends for an unset field) counts as absent, integers and booleans
//! are read one way, and a JSON body is size-capped, content-typed and checked against the
//! fields a route allows. How a refusal is reported depends on the route family: corpus routes
//! answer 400 `bad_request`, keyed routes 422 `validation_error`; both name the field.

use crate::error::ApiError;
use crate::http::{Request, Response};
use serde_json::{json, Map, Value};

/// Whether text holds nothing but ASCII whitespace. Input is judged blank by this one rule
/// everywhere, the rule the OpenAPI patterns (`\S`) state; other Unicode spaces count as
/// content.
pub fn is_blank(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_whitespace())
}

/// Trims ASCII whitespace (see [`is_blank`]).
pub fn trim_ascii(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_ascii_whitespace())
}

/// A JSON number as an integer, when it is one (4 or 4.0; not 4.5), as JSON Schema has it.
pub fn integral(n: &serde_json::Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

/// Where named parameters come from: a query string, or the arguments of an MCP tool call.
/// Both are read and checked the same way, so both give the same answers and errors.
pub trait Params {
    /// The parameter's value; `None` when absent (or empty, or JSON null).
    fn get(&self, name: &str) -> Result<Option<String>, ApiError>;
}

impl Params for Request {
    /// The single value of a query parameter; repeated parameters are refused.
    fn get(&self, name: &str) -> Result<Option<String>, ApiError> {
        let mut values = self
            .query_pairs()
            .into_iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v);
        let first = values.next();
        if values.next().is_some() {
            return Err(ApiError::bad_param(
                name,
                format!("parameter '{name}' was given more than once"),
            ));
        }
        Ok(first.filter(|v| !v.is_empty()))
    }
}

impl Params for Map<String, Value> {
    fn get(&self, name: &str) -> Result<Option<String>, ApiError> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone()).filter(|s| !s.is_empty())),
            Some(Value::Number(n)) => Ok(Some(
                integral(n).map_or_else(|| n.to_string(), |i| i.to_string()),
            )),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(ApiError::bad_param(
                name,
                format!("'{name}' must be a string, number or boolean"),
            )),
        }
    }
}

/// How a route family refuses a value it cannot use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// 400 `bad_request` naming the field: the corpus routes, context and MCP tools.
    BadRequest,
    /// 422 `validation_error` naming the field: the keyed template and webhook routes.
    Validation,
}

impl Refusal {
    /// The error that refuses `field` with `message`.
    pub fn error(self, field: &str, message: impl Into<String>) -> ApiError {
        match self {
            Refusal::BadRequest => ApiError::bad_param(field, message),
            Refusal::Validation => ApiError::validation(field, message),
        }
    }
}

/// An integer parameter within `min..=max`, `default` when absent.
pub fn integer(
    params: &impl Params,
    name: &str,
    default: i64,
    (min, max): (i64, i64),
    refusal: Refusal,
) -> Result<i64, ApiError> {
    match params.get(name)? {
        None => Ok(default),
        Some(v) => match v.trim().parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(refusal.error(
                name,
                format!("'{name}' must be an integer from {min} to {max}; got '{v}'"),
            )),
        },
    }
}

/// A boolean parameter: `true`/`1` or `false`/`0`; `None` when absent.
pub fn boolean(
    params: &impl Params,
    name: &str,
    refusal: Refusal,
) -> Result<Option<bool>, ApiError> {
    match params.get(name)?.as_deref().map(str::trim) {
        None => Ok(None),
        Some("true") | Some("1") => Ok(Some(true)),
        Some("false") | Some("0") => Ok(Some(false)),
        Some(other) => Err(refusal.error(
            name,
            format!("'{name}' must be true or false; got '{other}'"),
        )),
    }
}

/// One of a fixed set of values (compared after trimming and lower-casing), `None` when absent.
pub fn one_of<T: Copy>(
    params: &impl Params,
    name: &str,
    all: &[T],
    as_str: fn(T) -> &'static str,
    refusal: Refusal,
) -> Result<Option<T>, ApiError> {
    let Some(value) = params.get(name)? else {
        return Ok(None);
    };
    let wanted = value.trim().to_ascii_lowercase();
    all.iter()
        .copied()
        .find(|v| as_str(*v) == wanted)
        .map(Some)
        .ok_or_else(|| {
            let allowed: Vec<&str> = all.iter().map(|v| as_str(*v)).collect();
            refusal.error(
                name,
                format!("unknown {name} '{value}'; allowed: {}", allowed.join(", ")),
            )
        })
}

/// Largest page of a keyed list, and the largest offset.
pub const MAX_PAGE: i64 = 100;
pub const MAX_OFFSET: i64 = 1_000_000;

/// The `limit` (1 to [`MAX_PAGE`], default `default_limit`) and `offset` of a keyed list.
pub fn paging(params: &impl Params, default_limit: i64) -> Result<(i64, i64), ApiError> {
    Ok((
        integer(
            params,
            "limit",
            default_limit,
            (1, MAX_PAGE),
            Refusal::Validation,
        )?,
        integer(params, "offset", 0, (0, MAX_OFFSET), Refusal::Validation)?,
    ))
}

/// A page of a keyed list: `{data, meta: {total, limit, offset, has_more}}`.
pub fn page(items: Vec<Value>, total: i64, limit: i64, offset: i64) -> Response {
    let has_more = offset + (items.len() as i64) < total;
    Response::json(
        200,
        &json!({
            "data": items,
            "meta": { "total": total, "limit": limit, "offset": offset, "has_more": has_more },
        }),
    )
}

/// What a route accepts as a JSON object body.
#[derive(Clone, Copy, Debug)]
pub struct BodyRule<'a> {
    /// Fields a client may write.
    pub writable: &'a [&'a str],
    /// Fields the service maintains; named in their own refusal.
    pub read_only: &'a [&'a str],
    /// Whether an empty body counts as `{}` (otherwise it is malformed JSON).
    pub optional: bool,
}

/// A JSON field that must be a list of strings: `None` when absent, 400 naming the field
/// (with `expected`, e.g. "a list of unit ids") for anything else.
pub fn string_list(
    value: Option<&Value>,
    field: &str,
    expected: &str,
) -> Result<Option<Vec<String>>, ApiError> {
    let refused = || ApiError::bad_param(field, format!("'{field}' must be {expected}"));
    match value {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(String::from))
            .collect::<Option<Vec<String>>>()
            .map(Some)
            .ok_or_else(refused),
        Some(_) => Err(refused()),
    }
}

/// The body's bytes when declared as JSON; 400 for another content type. (Its size was
/// checked against the endpoint's cap before the handler ran.)
pub fn json_bytes(request: &Request) -> Result<&[u8], ApiError> {
    if !request.is_json() {
        return Err(ApiError::bad_request(
            "the body must be JSON, sent with 'Content-Type: application/json'",
        ));
    }
    Ok(&request.body)
}

/// Reads a JSON object body under `rule`. Another content type, malformed JSON or another
/// JSON value is 400; a field the client may not write (read-only or unknown) is 422 naming
/// it.
pub fn json_object(request: &Request, rule: BodyRule) -> Result<Map<String, Value>, ApiError> {
    if rule.optional && request.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    let value: Value = serde_json::from_slice(json_bytes(request)?)
        .map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(ApiError::bad_request("the body must be a JSON object"));
    };
    for key in map.keys() {
        if rule.read_only.contains(&key.as_str()) {
            return Err(ApiError::validation(
                key,
                format!("'{key}' is maintained by the service and cannot be written"),
            ));
        }
        if !rule.writable.contains(&key.as_str()) {
            return Err(ApiError::validation(
                key,
                format!(
                    "unknown field '{key}'; writable: {}",
                    rule.writable.join(", ")
                ),
            ));
        }
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;

    #[test]
    fn empty_parameters_count_as_absent_and_repeats_are_refused() {
        let r = Request::new(Method::Get, "/x?modality=&since=%20&q=");
        assert_eq!(r.get("modality").unwrap(), None);
        assert_eq!(r.get("q").unwrap(), None);
        // Whitespace is a value, refused by the parameter's own rule.
        assert_eq!(r.get("since").unwrap().as_deref(), Some(" "));
        let twice = Request::new(Method::Get, "/x?organ=lung&organ=liver");
        assert!(twice.get("organ").is_err());
    }

    #[test]
    fn integers_and_booleans_refuse_by_the_routes_rule() {
        let r = Request::new(Method::Get, "/x?limit=0&n=7&flag=maybe&on=1");
        let bad = integer(&r, "limit", 5, (1, 10), Refusal::BadRequest).unwrap_err();
        assert_eq!(bad.status(), 400);
        let bad = integer(&r, "limit", 5, (1, 10), Refusal::Validation).unwrap_err();
        assert_eq!(bad.status(), 422);
        assert_eq!(integer(&r, "n", 5, (1, 10), Refusal::BadRequest), Ok(7));
        assert_eq!(
            integer(&r, "absent", 5, (1, 10), Refusal::BadRequest),
            Ok(5)
        );
        assert_eq!(boolean(&r, "on", Refusal::BadRequest), Ok(Some(true)));
        assert_eq!(boolean(&r, "absent", Refusal::BadRequest), Ok(None));
        assert_eq!(
            boolean(&r, "flag", Refusal::Validation)
                .unwrap_err()
                .status(),
            422
        );
    }

    #[test]
    fn tool_arguments_read_like_query_parameters() {
        let args: Map<String, Value> =
            serde_json::from_str(r#"{"limit": 4.0, "q": "", "x": [1]}"#).unwrap();
        assert_eq!(args.get("limit").map(|_| ()), Some(()));
        assert_eq!(Params::get(&args, "limit").unwrap().as_deref(), Some("4"));
        assert_eq!(Params::get(&args, "q").unwrap(), None);
        assert!(Params::get(&args, "x").is_err());
    }

    #[test]
    fn integral_json_numbers_are_integers() {
        let n = |v: Value| v.as_number().unwrap().clone();
        assert_eq!(integral(&n(json!(4))), Some(4));
        assert_eq!(integral(&n(json!(4.0))), Some(4));
        assert_eq!(integral(&n(json!(4.5))), None);
        assert_eq!(integral(&n(json!(-2))), Some(-2));
    }

    fn post(content_type: &str, body: &str) -> Request {
        Request::new(Method::Post, "/x")
            .with_header("content-type", content_type)
            .with_body(body.as_bytes().to_vec())
    }

    const RULE: BodyRule = BodyRule {
        writable: &["name"],
        read_only: &["id"],
        optional: false,
    };

    #[test]
    fn json_bodies_are_typed_and_checked_field_by_field() {
        let field = |e: ApiError| match e {
            ApiError::Validation { field, .. } => field,
            other => panic!("expected 422, got {other:?}"),
        };
        assert!(json_object(&post("application/json", r#"{"name":"x"}"#), RULE).is_ok());
        assert_eq!(
            field(json_object(&post("application/json", r#"{"id":"x"}"#), RULE).unwrap_err()),
            "id"
        );
        assert_eq!(
            field(json_object(&post("application/json", r#"{"colour":1}"#), RULE).unwrap_err()),
            "colour"
        );
        for (ct, body, status) in [
            ("application/json", "{oops", 400),
            ("application/json", "[1]", 400),
            ("application/json", "", 400),
            ("text/plain", "{}", 400),
        ] {
            let err = json_object(&post(ct, body), RULE).unwrap_err();
            assert_eq!(err.status(), status, "{ct} {body}");
        }
        let optional = BodyRule {
            optional: true,
            ..RULE
        };
        assert_eq!(json_object(&post("", "  "), optional), Ok(Map::new()));
    }
}
