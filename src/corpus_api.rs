//! The corpus read routes: organs, systems, one system, search, changes (JSON and RSS),
//! coverage. All answer from the compiled corpus in memory.

use crate::build_info::CORPUS_HASH;
use crate::corpus::compile::NOTICE;
use crate::corpus::compiled::{self, SystemEntry, EVENTS, SYSTEMS};
use crate::corpus::source::{Family, Status, MODALITIES};
use crate::corpus::validate::{date_key, is_date};
use crate::error::ApiError;
use crate::http::{Request, Response};
use crate::search;
use serde_json::json;

/// `Cache-Control` of corpus responses: browsers keep them 5 minutes, shared caches an hour,
/// and may serve a stale copy for a day while revalidating.
pub const CACHE_CONTROL: &str = "public, max-age=300, s-maxage=3600, stale-while-revalidate=86400";
/// Events returned by `/changes` when no limit is given, and the most it returns.
pub const CHANGES_DEFAULT_LIMIT: usize = 50;
pub const CHANGES_MAX_LIMIT: usize = 500;

const JSON: &str = "application/json; charset=utf-8";

/// The strong `ETag` of every corpus response: the corpus build hash.
pub fn etag() -> String {
    format!("\"{}\"", &CORPUS_HASH[..32.min(CORPUS_HASH.len())])
}

/// Wraps a corpus body with the caching headers, or answers 304 when the client's copy is
/// current.
pub fn cached(request: &Request, response: Response) -> Response {
    let etag = etag();
    let fresh = request.header("if-none-match").is_some_and(|v| {
        v.split(',').any(|tag| {
            let tag = tag.trim();
            tag == "*" || tag.trim_start_matches("W/") == etag
        })
    });
    let response = if fresh {
        Response::empty(304)
    } else {
        response
    };
    response
        .with_header("etag", etag)
        .with_header("cache-control", CACHE_CONTROL)
}

fn prebuilt(path: &str) -> Result<&'static [u8], ApiError> {
    compiled::file(path).ok_or_else(|| ApiError::internal(format!("missing compiled file {path}")))
}

/// The single value of a query parameter; repeated parameters are refused. An empty value
/// (what a form sends for an unset field) counts as absent.
fn param(request: &Request, name: &str) -> Result<Option<String>, ApiError> {
    let mut values = request
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

/// Where named parameters come from: a query string, or the arguments of an MCP tool call.
/// Both are read and checked the same way, so both give the same answers and errors.
pub trait Params {
    /// The parameter's value; `None` when absent (or empty, or JSON null).
    fn get(&self, name: &str) -> Result<Option<String>, ApiError>;
}

impl Params for Request {
    fn get(&self, name: &str) -> Result<Option<String>, ApiError> {
        param(self, name)
    }
}

impl Params for serde_json::Map<String, serde_json::Value> {
    fn get(&self, name: &str) -> Result<Option<String>, ApiError> {
        use serde_json::Value;
        match self.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone()).filter(|s| !s.is_empty())),
            Some(Value::Number(n)) => Ok(Some(
                crate::context::integral(n).map_or_else(|| n.to_string(), |i| i.to_string()),
            )),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(ApiError::bad_param(
                name,
                format!("'{name}' must be a string, number or boolean"),
            )),
        }
    }
}

/// An integer parameter within `min..=max`.
pub fn int_param(
    request: &impl Params,
    name: &str,
    default: usize,
    min: usize,
    max: usize,
) -> Result<usize, ApiError> {
    match request.get(name)? {
        None => Ok(default),
        Some(v) => match v.trim().parse::<usize>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(ApiError::bad_param(
                name,
                format!("'{name}' must be an integer from {min} to {max}; got '{v}'"),
            )),
        },
    }
}

/// `{"data": [items...], "meta": meta}` (and the notice) from prebuilt JSON items, without
/// re-serialising them.
fn envelope<'a>(
    items: impl Iterator<Item = &'a str>,
    meta: serde_json::Value,
    notice: bool,
) -> Vec<u8> {
    let mut body = String::from("{\"data\":[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str(item);
    }
    body.push_str("],\"meta\":");
    body.push_str(&meta.to_string());
    if notice {
        body.push_str(",\"notice\":");
        body.push_str(&json!(NOTICE).to_string());
    }
    body.push('}');
    body.into_bytes()
}

/// The full-text query parameter `q`, refused when longer than search accepts.
fn query_text(request: &impl Params) -> Result<Option<String>, ApiError> {
    let q = request.get("q")?;
    if q.as_ref()
        .is_some_and(|q| q.chars().count() > search::MAX_QUERY_CHARS)
    {
        return Err(ApiError::bad_param(
            "q",
            format!("'q' is longer than {} characters", search::MAX_QUERY_CHARS),
        ));
    }
    Ok(q)
}

/// `GET /api/v1/organs`
pub fn organs(request: &Request) -> Result<Response, ApiError> {
    Ok(cached(
        request,
        Response::bytes(200, JSON, prebuilt("organs.json")?),
    ))
}

/// `GET /api/v1/coverage`
pub fn coverage(request: &Request) -> Result<Response, ApiError> {
    Ok(cached(
        request,
        Response::bytes(200, JSON, prebuilt("coverage.json")?),
    ))
}

/// `GET /api/v1/systems/{slug}`
pub fn system(request: &Request, slug: &str) -> Result<Response, ApiError> {
    match compiled::detail(slug) {
        Some(body) => Ok(cached(request, Response::bytes(200, JSON, body))),
        None => {
            let shown: String = slug.chars().take(80).collect();
            let suggestions = search::closest_slugs(&shown.to_lowercase(), 3);
            Err(ApiError::not_found(format!(
                "no system with slug '{shown}'; closest: {}",
                suggestions.join(", ")
            )))
        }
    }
}

/// Every spelling the `modality` filter accepts (compared case-insensitively), with the
/// interface's name it stands for. The OpenAPI document lists the same spellings.
pub const MODALITY_SPELLINGS: &[(&str, &str)] = &[
    ("CT", "CT"),
    ("MRI", "MRI"),
    ("US", "US"),
    ("Mammography", "Mammography"),
    ("PET/CT", "PET/CT"),
    ("XR", "XR"),
    ("MR", "MRI"),
    ("ultrasound", "US"),
    ("sonography", "US"),
    ("mammo", "Mammography"),
    ("MG", "Mammography"),
    ("PET", "PET/CT"),
    ("PET-CT", "PET/CT"),
    ("x-ray", "XR"),
    ("radiography", "XR"),
];

/// Maps a modality as users write it to the interface's name.
pub fn modality(value: &str) -> Option<&'static str> {
    let v = value.trim();
    MODALITY_SPELLINGS
        .iter()
        .find(|(spelling, _)| spelling.eq_ignore_ascii_case(v))
        .map(|(_, name)| *name)
}

fn enum_param<T: Copy>(
    request: &impl Params,
    name: &str,
    all: &[T],
    as_str: fn(T) -> &'static str,
) -> Result<Option<T>, ApiError> {
    let Some(value) = request.get(name)? else {
        return Ok(None);
    };
    let wanted = value.trim().to_ascii_lowercase();
    all.iter()
        .copied()
        .find(|v| as_str(*v) == wanted)
        .map(Some)
        .ok_or_else(|| {
            let allowed: Vec<&str> = all.iter().map(|v| as_str(*v)).collect();
            ApiError::bad_param(
                name,
                format!("unknown {name} '{value}'; allowed: {}", allowed.join(", ")),
            )
        })
}

/// The filters of the systems list, read and checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemFilter {
    pub organ: Option<String>,
    pub modality: Option<&'static str>,
    pub family: Option<Family>,
    pub status: Option<Status>,
    pub q: Option<String>,
}

impl SystemFilter {
    /// Reads `organ`, `modality`, `family`, `status` and `q`; unknown enum values are refused
    /// with the allowed values.
    pub fn read(params: &impl Params) -> Result<SystemFilter, ApiError> {
        let modality_name = match params.get("modality")? {
            None => None,
            Some(m) => Some(modality(&m).ok_or_else(|| {
                ApiError::bad_param(
                    "modality",
                    format!(
                        "unknown modality '{m}'; allowed: {} (aliases such as MR, ultrasound, mammo, PET, X-ray are accepted)",
                        MODALITIES.join(", ")
                    ),
                )
            })?),
        };
        Ok(SystemFilter {
            organ: params.get("organ")?.map(|o| o.trim().to_lowercase()),
            modality: modality_name,
            family: enum_param(params, "family", &Family::ALL, Family::as_str)?,
            status: enum_param(params, "status", &Status::ALL, Status::as_str)?,
            q: query_text(params)?.filter(|q| !crate::http::is_blank(q)),
        })
    }

    fn keeps(&self, s: &SystemEntry) -> bool {
        self.family.is_none_or(|f| s.family == f)
            && self.status.is_none_or(|st| s.status == st)
            && self.modality.is_none_or(|m| s.modalities.contains(&m))
            && self
                .organ
                .as_ref()
                .is_none_or(|o| s.organs.iter().any(|x| x == o))
    }

    /// The matching systems. Without q: every one, by slug. With q: those the query reaches
    /// (directly or through one of their outcomes), best first.
    pub fn select(&self) -> Vec<&'static SystemEntry> {
        match &self.q {
            None => {
                let mut all: Vec<&SystemEntry> = SYSTEMS.iter().filter(|s| self.keeps(s)).collect();
                all.sort_by_key(|s| s.slug);
                all
            }
            Some(q) => {
                let mut out: Vec<&SystemEntry> = Vec::new();
                for hit in search::search(q, 1000) {
                    if let Some(s) = compiled::system(hit.slug) {
                        if self.keeps(s) && !out.iter().any(|o| o.slug == s.slug) {
                            out.push(s);
                        }
                    }
                }
                out
            }
        }
    }

    /// The filters as the response's `meta.filters` reports them.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "organ": self.organ,
            "modality": self.modality,
            "family": self.family.map(Family::as_str),
            "status": self.status.map(Status::as_str),
            "q": self.q,
        })
    }
}

/// `GET /api/v1/systems`
pub fn systems(request: &Request) -> Result<Response, ApiError> {
    let filter = SystemFilter::read(request)?;
    let selected = filter.select();
    let body = envelope(
        selected.iter().map(|s| s.summary_json),
        json!({ "total": selected.len(), "filters": filter.to_json() }),
        true,
    );
    Ok(cached(request, Response::bytes(200, JSON, body)))
}

/// `GET /api/v1/search`
pub fn search(request: &Request) -> Result<Response, ApiError> {
    let q = query_text(request)?.unwrap_or_default();
    if crate::http::is_blank(&q) {
        return Err(ApiError::bad_param(
            "q",
            "query parameter 'q' is required and must not be empty",
        ));
    }
    let limit = int_param(
        request,
        "limit",
        search::DEFAULT_LIMIT,
        1,
        search::MAX_LIMIT,
    )?;
    let hits = search::search(&q, limit);
    let data: Vec<serde_json::Value> = hits
        .iter()
        .map(|h| {
            let mut v = serde_json::to_value(h).unwrap_or_default();
            v["links"] = json!({ "system": format!("/api/v1/systems/{}", h.slug) });
            v
        })
        .collect();
    Ok(cached(
        request,
        Response::json(
            200,
            &json!({
                "query": q,
                "data": data,
                "meta": { "total": data.len(), "limit": limit },
                "notice": NOTICE,
            }),
        ),
    ))
}

/// `GET /api/v1/changes`
pub fn changes(request: &Request) -> Result<Response, ApiError> {
    let limit = int_param(
        request,
        "limit",
        CHANGES_DEFAULT_LIMIT,
        1,
        CHANGES_MAX_LIMIT,
    )?;
    let since = match param(request, "since")? {
        None => None,
        Some(s) if is_date(s.trim()) => Some(date_key(s.trim())),
        Some(s) => {
            return Err(ApiError::bad_param(
                "since",
                format!("'since' must be a date YYYY-MM-DD (or YYYY-MM, YYYY); got '{s}'"),
            ))
        }
    };
    let matching: Vec<_> = EVENTS
        .iter()
        .filter(|e| since.as_ref().is_none_or(|s| e.date >= s.as_str()))
        .collect();
    let body = envelope(
        matching.iter().take(limit).map(|e| e.json),
        json!({
            "total": matching.len(),
            "limit": limit,
            "since": since,
            "rss": "/feed/changes.xml",
        }),
        false,
    );
    Ok(cached(request, Response::bytes(200, JSON, body)))
}

/// `GET /feed/changes.xml`
pub fn changes_rss(request: &Request) -> Result<Response, ApiError> {
    let template = std::str::from_utf8(prebuilt("changes.xml")?)
        .map_err(|e| ApiError::internal(format!("feed is not UTF-8: {e}")))?;
    let origin = crate::corpus::compile::xml_escape(&request.origin);
    let body = template.replace("{{BASE}}", &origin);
    Ok(cached(
        request,
        Response::bytes(200, "application/rss+xml; charset=utf-8", body.into_bytes()),
    ))
}

/// `GET /llms.txt`: the discovery file for agents (llms.txt convention).
pub fn llms_txt(request: &Request) -> Result<Response, ApiError> {
    Ok(cached(
        request,
        Response::bytes(
            200,
            "text/plain; charset=utf-8",
            include_str!("docs/llms.txt").as_bytes(),
        ),
    ))
}

/// `GET|POST /api/v1/context`: grounded context for a finding; needs a key with the
/// `context` scope.
pub async fn context<S: crate::app::Services>(
    services: &S,
    request: &Request,
) -> Result<Response, ApiError> {
    use crate::context::{self as ctx, ContextBody, ContextQuery, Format};
    crate::auth::authenticate(services, request, crate::auth::Scope::Context).await?;
    let query = if request.method == crate::http::Method::Post {
        if !request.is_json() {
            return Err(ApiError::bad_request(
                "the body must be JSON, sent with 'Content-Type: application/json'",
            ));
        }
        if request.body.len() > ctx::MAX_BODY_BYTES {
            return Err(ApiError::PayloadTooLarge {
                limit: ctx::MAX_BODY_BYTES,
            });
        }
        let body: ContextBody = serde_json::from_slice(&request.body)
            .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))?;
        let limit = match &body.limit {
            None => None,
            Some(n) => Some(ctx::integral(n).ok_or_else(|| {
                ApiError::bad_param(
                    "limit",
                    format!(
                        "'limit' must be an integer from 1 to {}; got {n}",
                        ctx::MAX_LIMIT
                    ),
                )
            })?),
        };
        ContextQuery::new(
            body.text,
            body.systems,
            body.organ,
            limit,
            body.format,
            body.verified,
        )?
    } else {
        let limit = match param(request, "limit")? {
            None => None,
            Some(v) => Some(v.trim().parse::<i64>().map_err(|_| {
                ApiError::bad_param(
                    "limit",
                    format!(
                        "'limit' must be an integer from 1 to {}; got '{v}'",
                        ctx::MAX_LIMIT
                    ),
                )
            })?),
        };
        let verified = match param(request, "verified")?.as_deref().map(str::trim) {
            None => None,
            Some("true") | Some("1") => Some(true),
            Some("false") | Some("0") => Some(false),
            Some(other) => {
                return Err(ApiError::bad_param(
                    "verified",
                    format!("'verified' must be true or false; got '{other}'"),
                ))
            }
        };
        let systems = param(request, "systems")?
            .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
        let q = param(request, "q")?;
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
        ContextQuery::new(
            q,
            systems,
            param(request, "organ")?,
            limit,
            param(request, "format")?,
            verified,
        )?
    };
    let response = match query.format {
        Format::Json => Response::json(200, &ctx::to_json(&query)),
        Format::Markdown => {
            let md = ctx::to_markdown(&query);
            let tokens = ctx::approx_tokens(&md);
            Response::bytes(200, "text/markdown; charset=utf-8", md.into_bytes())
                .with_header("x-approx-tokens", tokens.to_string())
        }
    };
    // Keyed answers are for the caller only.
    Ok(response.with_header("cache-control", "private, no-store"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modality_spellings_map_case_insensitively() {
        assert_eq!(modality("mr"), Some("MRI"));
        assert_eq!(modality(" Ultrasound "), Some("US"));
        assert_eq!(modality("pet/ct"), Some("PET/CT"));
        assert_eq!(modality("SPECT"), None);
        for (spelling, name) in MODALITY_SPELLINGS {
            assert_eq!(modality(spelling), Some(*name));
        }
    }

    #[test]
    fn empty_parameters_count_as_absent() {
        let r = Request::new(crate::http::Method::Get, "/x?modality=&since=%20&q=");
        assert_eq!(param(&r, "modality").unwrap(), None);
        assert_eq!(param(&r, "q").unwrap(), None);
        // Whitespace is a value, refused by the parameter's own rule.
        assert_eq!(param(&r, "since").unwrap().as_deref(), Some(" "));
        let twice = Request::new(crate::http::Method::Get, "/x?organ=lung&organ=liver");
        assert!(param(&twice, "organ").is_err());
    }
}
