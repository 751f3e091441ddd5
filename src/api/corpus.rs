//! The corpus read routes: organs, systems, one system, search, changes (JSON and RSS),
//! coverage, and evaluating a system. All answer from the compiled corpus in memory; the
//! `GET`s carry the corpus caching headers.

use crate::args::{self, Door};
use crate::cache::cached;
use crate::call::Call;
use crate::corpus::compiled::{self, CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT, EVENTS};
use crate::corpus::source::NOTICE;
use crate::corpus::syntax::{date_key, is_date};
use crate::error::ApiError;
use crate::evaluation;
use crate::filter::SystemFilter;
use crate::http::{Request, Response, JSON};
use crate::input::{integer, json_bytes, Params, Refusal};
use crate::routes::{CorpusOp, Op};
use crate::schema;
use crate::search;
use crate::services::Services;
use crate::versions;
use serde_json::json;

/// Runs a corpus operation.
pub fn dispatch<S: Services>(op: CorpusOp, call: &Call<'_, S>) -> Result<Response, ApiError> {
    let request = call.request;
    match op {
        CorpusOp::ListOrgans => organs(request),
        CorpusOp::ListSystems => systems(request),
        CorpusOp::GetSystem => system(request, call.path("id")),
        CorpusOp::SearchCorpus => search(request),
        CorpusOp::ListChanges => changes(request),
        CorpusOp::GetChangesRss => changes_rss(request),
        CorpusOp::GetCoverage => coverage(request),
        CorpusOp::EvaluateSystem => evaluate(request, call.path("id"), false),
        CorpusOp::EvaluateSystemPost => evaluate(request, call.path("id"), true),
        CorpusOp::DiffSystems => diff(request, call.path("id"), call.path("other")),
        CorpusOp::RescoreSystems => rescore(request, call.path("id"), call.path("other")),
        CorpusOp::GetFhirCodeSystem => fhir_code_system(request, call.path("id")),
    }
}

/// `GET /api/v1/systems/{slug}/diff/{other}`: the changes as JSON or markdown (cacheable: the
/// answer depends on the corpus only).
fn diff(request: &Request, slug: &str, other: &str) -> Result<Response, ApiError> {
    let op = Op::Corpus(CorpusOp::DiffSystems);
    reject_unknown_params(request, op)?;
    let markdown = args::versions_format(request.get("format")?.as_deref())?;
    let pair = args::versions(op, slug, other, Door::Http)?;
    let answer = versions::diff(&pair);
    let response = if markdown {
        super::markdown(versions::diff_markdown(&answer))
    } else {
        Response::json(200, &answer)
    };
    Ok(cached(request, response))
}

/// `POST /api/v1/systems/{slug}/rescore/{other}` with `{inputs, format?}`.
fn rescore(request: &Request, slug: &str, other: &str) -> Result<Response, ApiError> {
    let op = Op::Corpus(CorpusOp::RescoreSystems);
    let body: serde_json::Value = serde_json::from_slice(json_bytes(request)?)
        .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))?;
    let serde_json::Value::Object(body) = body else {
        return Err(ApiError::bad_request(
            "the body must be a JSON object {inputs, format?}",
        ));
    };
    args::reject_unknown(&body, &schema::body_names(op))?;
    let pair = args::versions(op, slug, other, Door::Http)?;
    let format = match body.get("format") {
        None | Some(serde_json::Value::Null) => request.get("format")?,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(ApiError::bad_param("format", "'format' must be a string")),
    };
    let markdown = args::versions_format(format.as_deref())?;
    let sets = versions::input_sets(body.get("inputs"))?;
    let answer = versions::rescore(&pair, &sets)?;
    Ok(if markdown {
        super::markdown(versions::rescore_markdown(&answer))
    } else {
        Response::json(200, &answer)
    })
}

/// Refuses a query parameter the operation does not declare.
fn reject_unknown_params(request: &Request, op: Op) -> Result<(), ApiError> {
    let allowed: Vec<&str> = schema::arguments(op)
        .iter()
        .filter(|a| a.place == schema::Place::Query)
        .map(|a| a.name)
        .collect();
    for (name, _) in request.query_pairs() {
        if !allowed.contains(&name.as_str()) {
            return Err(ApiError::bad_param(
                &name,
                format!(
                    "unknown parameter '{name}'; allowed: {}",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn prebuilt(path: &str) -> Result<&'static [u8], ApiError> {
    compiled::file(path).ok_or_else(|| ApiError::internal(format!("missing compiled file {path}")))
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

/// `GET /api/v1/organs`
fn organs(request: &Request) -> Result<Response, ApiError> {
    Ok(cached(
        request,
        Response::bytes(200, JSON, prebuilt("organs.json")?),
    ))
}

/// `GET /api/v1/coverage`
fn coverage(request: &Request) -> Result<Response, ApiError> {
    Ok(cached(
        request,
        Response::bytes(200, JSON, prebuilt("coverage.json")?),
    ))
}

/// `GET /api/v1/systems/{slug}`
fn system(request: &Request, slug: &str) -> Result<Response, ApiError> {
    match compiled::detail(slug) {
        Some(body) => Ok(cached(request, Response::bytes(200, JSON, body))),
        None => Err(search::unknown_slug("id", slug).into()),
    }
}

/// `GET|POST /api/v1/systems/{slug}/evaluate`: the inputs from the query string or the JSON
/// body; the answer as JSON or markdown. A `GET` is cacheable (its URL holds every input).
fn evaluate(request: &Request, slug: &str, post: bool) -> Result<Response, ApiError> {
    let op = Op::Corpus(if post {
        CorpusOp::EvaluateSystemPost
    } else {
        CorpusOp::EvaluateSystem
    });
    let logic = args::logic(op, slug, Door::Http)?;
    let mut named_format = request.get("format")?.is_some();
    let mut ask = if post {
        let body: serde_json::Value = serde_json::from_slice(json_bytes(request)?)
            .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))?;
        let serde_json::Value::Object(body) = body else {
            return Err(ApiError::bad_request(
                "the body must be a JSON object {inputs, units?, format?}",
            ));
        };
        named_format |= body.contains_key("format");
        evaluation::from_object(
            logic,
            &body,
            &schema::body_names(op),
            request.get("format")?.as_deref(),
        )?
    } else {
        evaluation::from_query(logic, &request.query_pairs())?
    };
    // A FHIR client asks by media type.
    let wants_fhir = request
        .header("accept")
        .is_some_and(|a| a.to_ascii_lowercase().contains("application/fhir+json"));
    if !named_format && wants_fhir {
        ask.format = evaluation::Format::Fhir;
    }
    let eval = evaluation::run(logic, &ask)?;
    let response = match ask.format {
        evaluation::Format::Fhir => {
            let bundle = crate::fhir::bundle(
                logic,
                &ask,
                &eval,
                &request.origin,
                &evaluation::link(logic, &ask),
            );
            let body = serde_json::to_vec(&bundle)
                .map_err(|e| ApiError::internal(format!("FHIR bundle: {e}")))?;
            Response::bytes(200, crate::fhir::MEDIA_TYPE, body)
        }
        evaluation::Format::Json => Response::json(200, &evaluation::answer(logic, &ask, &eval)),
        evaluation::Format::Markdown => {
            super::markdown(evaluation::to_markdown(logic, &ask, &eval))
        }
    };
    Ok(if post {
        response
    } else {
        // The same URL answers JSON or FHIR by the Accept header.
        cached(request, response).with_header("vary", "Accept")
    })
}

/// `GET /api/v1/fhir/CodeSystem/{slug}`: radref's codes of one system and version.
fn fhir_code_system(request: &Request, slug: &str) -> Result<Response, ApiError> {
    let logic = args::logic(Op::Corpus(CorpusOp::GetFhirCodeSystem), slug, Door::Http)?;
    let body = serde_json::to_vec(&crate::fhir::code_system(logic, &request.origin))
        .map_err(|e| ApiError::internal(format!("FHIR CodeSystem: {e}")))?;
    Ok(cached(
        request,
        Response::bytes(200, crate::fhir::MEDIA_TYPE, body),
    ))
}

/// `GET /api/v1/systems`
fn systems(request: &Request) -> Result<Response, ApiError> {
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
fn search(request: &Request) -> Result<Response, ApiError> {
    let query = args::search(request, Door::Http)?;
    let ranking = search::rank(&query.text, query.limit, true);
    Ok(cached(
        request,
        Response::bytes(200, JSON, search_body(&query.text, &ranking, query.limit)),
    ))
}

/// The search answer, written straight into its bytes: `{"data", "meta", "notice", "query"}`
/// with each hit's fields in the same (alphabetical) order as before, when the answer was built
/// as a `serde_json::Value` and then serialised. Building that tree allocated a map per hit and
/// per reason and cost as much as the search itself.
fn search_body(q: &str, ranking: &search::Ranking, limit: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(512 + 400 * ranking.len());
    out.extend_from_slice(b"{\"data\":[");
    for i in 0..ranking.len() {
        let hit = ranking.hit_at(i);
        if i > 0 {
            out.push(b',');
        }
        out.push(b'{');
        if let Some(code) = hit.code {
            out.extend_from_slice(b"\"code\":");
            json_str(&mut out, code);
            out.push(b',');
        }
        out.extend_from_slice(b"\"label\":");
        json_str(&mut out, hit.label);
        out.extend_from_slice(b",\"links\":{\"system\":");
        out.extend_from_slice(b"\"/api/v1/systems/");
        // A slug is lower-case letters, digits and hyphens: nothing to escape.
        out.extend_from_slice(hit.slug.as_bytes());
        out.push(b'"');
        out.extend_from_slice(b"},\"score\":");
        json_value(&mut out, &hit.score);
        out.extend_from_slice(b",\"slug\":");
        json_str(&mut out, hit.slug);
        out.extend_from_slice(b",\"system\":");
        json_str(&mut out, hit.system);
        out.extend_from_slice(b",\"type\":");
        json_str(&mut out, hit.kind);
        out.extend_from_slice(b",\"why\":[");
        for (j, reason) in ranking.why(i).enumerate() {
            if j > 0 {
                out.push(b',');
            }
            out.push(b'{');
            if let Some(distance) = reason.distance {
                out.extend_from_slice(b"\"distance\":");
                json_value(&mut out, &distance);
                out.push(b',');
            }
            out.extend_from_slice(b"\"field\":");
            json_str(&mut out, reason.field);
            out.extend_from_slice(b",\"match\":");
            json_value(&mut out, &reason.kind);
            out.extend_from_slice(b",\"matched\":");
            json_str(&mut out, reason.matched);
            out.extend_from_slice(b",\"term\":");
            json_str(&mut out, reason.term);
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"],\"meta\":{\"limit\":");
    json_value(&mut out, &limit);
    out.extend_from_slice(b",\"total\":");
    json_value(&mut out, &ranking.len());
    out.extend_from_slice(b"},\"notice\":");
    json_str(&mut out, NOTICE);
    out.extend_from_slice(b",\"query\":");
    json_str(&mut out, q);
    out.push(b'}');
    out
}

/// A JSON string, escaped as serde_json escapes it.
fn json_str(out: &mut Vec<u8>, s: &str) {
    // Most of an answer's strings (names, labels, the notice) need no escape: copied whole.
    // serde_json's escaper looks up every byte in a table, which was a fifth of a search
    // request's instructions (the notice alone is 330 bytes).
    if needs_escape(s.as_bytes()) {
        json_value(out, s);
    } else {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// Whether a JSON string needs an escape: a quote, a backslash or a control character
/// (below 0x20). Eight bytes at a time: a byte of `x` is zero exactly where `(x - 0x01..)`
/// borrows into its top bit while `x`'s own top bit is clear, and the first such byte is found
/// exactly, so "any byte" is exact (a later byte may be flagged by the borrow, never a missed
/// one).
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH != 0;
    let zero_at = |x: u64| below(x, 1);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let x = u64::from_ne_bytes(chunk.try_into().expect("eight bytes"));
        if below(x, 0x20)
            || zero_at(x ^ (ONES * u64::from(b'"')))
            || zero_at(x ^ (ONES * u64::from(b'\\')))
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// A scalar as serde_json writes it (numbers, strings and unit enums cannot fail).
fn json_value<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// `GET /api/v1/changes`
fn changes(request: &Request) -> Result<Response, ApiError> {
    let limit = integer(
        request,
        "limit",
        CHANGES_DEFAULT_LIMIT as i64,
        (1, CHANGES_MAX_LIMIT as i64),
        Refusal::BadRequest,
    )? as usize;
    let since = match request.get("since")? {
        None => None,
        Some(s) if is_date(s.trim()) => Some(date_key(s.trim())),
        Some(s) => {
            return Err(ApiError::bad_param(
                "since",
                format!("'since' must be a calendar date YYYY-MM-DD (or YYYY-MM, YYYY); got '{s}'"),
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
fn changes_rss(request: &Request) -> Result<Response, ApiError> {
    let template = std::str::from_utf8(prebuilt("changes.xml")?)
        .map_err(|e| ApiError::internal(format!("feed is not UTF-8: {e}")))?;
    let origin = crate::corpus::text::xml_escape(&request.origin);
    let body = template.replace("{{BASE}}", &origin);
    Ok(cached(
        request,
        Response::bytes(200, "application/rss+xml; charset=utf-8", body.into_bytes()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_exactly_where_json_needs_it() {
        // Every byte in every position of a chunk and of the tail: an escape is seen wherever
        // it stands, and nothing else (UTF-8, DEL, the bytes just above the limits) is.
        for len in 1..=19 {
            for at in 0..len {
                for b in 0u8..=255 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let want = b < 0x20 || b == b'"' || b == b'\\';
                    assert_eq!(needs_escape(&bytes), want, "byte {b:#x} at {at} of {len}");
                }
            }
        }
        assert!(!needs_escape(b""));
        assert!(!needs_escape("Ä ≥ 70% – «é»".as_bytes()));
        // Written as serde_json writes it, escapes or not.
        for s in [
            "plain",
            "",
            "a \"quoted\" word",
            "back\\slash",
            "tab\tnew\nline\u{1}",
            "≥ 70%",
        ] {
            let mut out = Vec::new();
            json_str(&mut out, s);
            assert_eq!(out, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }

    /// The answer as it was built before it was written directly: a `serde_json::Value` with
    /// the links added to each serialised hit.
    fn as_value(q: &str, hits: &[search::Hit], limit: usize) -> Vec<u8> {
        let data: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                let mut v = serde_json::to_value(h).unwrap();
                v["links"] = json!({ "system": format!("/api/v1/systems/{}", h.slug) });
                v
            })
            .collect();
        serde_json::to_vec(&json!({
            "query": q,
            "data": data,
            "meta": { "total": data.len(), "limit": limit },
            "notice": NOTICE,
        }))
        .unwrap()
    }

    #[test]
    fn the_search_answer_is_byte_for_byte_the_serialised_value() {
        for q in [
            "fleischer",
            "tirads",
            "lungrads 4B",
            "bosniak IIF",
            "8 mm solid nodule",
            "LR-5",
            "recsit",
            "\"quoted\" \\ é ✓",
            "qqqqzzzz",
        ] {
            for limit in [1, 10, 50] {
                let ranking = search::rank(q, limit, true);
                assert_eq!(
                    String::from_utf8(search_body(q, &ranking, limit)).unwrap(),
                    String::from_utf8(as_value(q, &ranking.hits(), limit)).unwrap(),
                    "{q} {limit}"
                );
            }
        }
    }
}
