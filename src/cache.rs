//! HTTP caching of answers that depend only on the compiled corpus.
//!
//! Every such answer carries the same strong `ETag` (the corpus build hash) and the same
//! `Cache-Control`, and a client whose copy is current gets 304.

use crate::build_info::CORPUS_HASH;
use crate::http::{Request, Response};

/// `Cache-Control` of corpus responses: browsers keep them 5 minutes, shared caches an hour,
/// and may serve a stale copy for a day while revalidating.
pub const CACHE_CONTROL: &str = "public, max-age=300, s-maxage=3600, stale-while-revalidate=86400";

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
