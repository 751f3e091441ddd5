//! The request and the response across the wasm/JS boundary, in one call each way.
//!
//! worker's own types cross it piecemeal: `worker::Request` reads the method, URL, headers and
//! `cf` object in four calls when it is made, iterating the headers costs several calls per
//! header, and a `worker::Response` costs a `Headers` object plus one call and two string
//! copies per header, then a copy of the body into Rust's heap and another into a
//! `Uint8Array`. At the rate a corpus route answers, those calls were most of a request's
//! time (see README, Performance). Here a few lines of JavaScript do the same work on the JS
//! side: the request's head comes across as one string, and a response goes back as one call
//! with its headers in two strings (those many answers share, parsed once into a `Headers`
//! object the runtime copies, and those of this answer alone) and its body as one string, or,
//! for a prebuilt body, as one Uint8Array copied out of wasm memory once per isolate.

use crate::http::{split_url, Method, Request, Response};
use std::borrow::Cow;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::UnwrapThrowExt;
use worker::worker_sys::web_sys;

#[wasm_bindgen(inline_js = r#"
export function requestHead(request) {
  let head = request.method + "\n" + request.url;
  for (const [name, value] of request.headers) head += "\n" + name + ":" + value;
  return head;
}

// Header sets the runtime has already parsed, by their text. Most answers of a route share
// their headers (content type, caching, CORS), and a Response copies a Headers object it is
// given without converting and validating each name and value again, which cost more than
// the rest of a small answer. The cache is bounded: past 64 sets it starts again.
const headerSets = new Map();

function headerSet(head) {
  let headers = headerSets.get(head);
  if (headers === undefined) {
    headers = new Headers();
    if (head.length > 0) {
      for (const line of head.split("\n")) {
        const colon = line.indexOf(":");
        headers.append(line.slice(0, colon), line.slice(colon + 1));
      }
    }
    if (headerSets.size >= 64) headerSets.clear();
    headerSets.set(head, headers);
  }
  return headers;
}

function withHeaders(status, shared, own, body) {
  const response = new Response(body, { status, headers: headerSet(shared) });
  if (own.length > 0) {
    for (const line of own.split("\n")) {
      const colon = line.indexOf(":");
      response.headers.append(line.slice(0, colon), line.slice(colon + 1));
    }
  }
  return response;
}

// A text body crosses as a string: it lives on the JS heap like any other string. A
// Uint8Array per answer is an ArrayBuffer outside that heap, and their external memory made
// V8 run full collections that stalled one search in a hundred by milliseconds.
export function respondText(status, shared, own, body) {
  return withHeaders(status, shared, own, body.length > 0 ? body : null);
}

// The prebuilt bodies (a system's detail, organs, coverage, the OpenAPI document) are static
// bytes of the wasm module, the same for every answer: each is copied out once into a
// Uint8Array kept here, by its address and length, and every Response copies from that. A
// string would cost a UTF-8 decode and re-encode of up to 40 KB per answer; a fresh
// ArrayBuffer per answer, external memory for the collector. Bounded by the corpus.
const staticBodies = new Map();

export function respondStatic(status, shared, own, key, body) {
  let bytes = staticBodies.get(key);
  if (bytes === undefined) {
    bytes = body.slice();
    staticBodies.set(key, bytes);
  }
  return withHeaders(status, shared, own, bytes);
}

export function respondBytes(status, shared, own, body) {
  // `body` is a view of wasm memory, valid only during this call: slice() copies it out.
  return withHeaders(status, shared, own, body.length > 0 ? body.slice() : null);
}
"#)]
extern "C" {
    /// `METHOD\nURL\nname:value\n...`, header names in lower case as the runtime gives them
    /// (repeated headers already joined with `, `).
    #[wasm_bindgen(js_name = requestHead)]
    fn request_head(request: &web_sys::Request) -> String;

    /// A `Response` with the status, the headers `name:value` one per line (`shared`: those
    /// many answers repeat, `own`: those that change from answer to answer), and a UTF-8
    /// body, which crosses as a JS string.
    #[wasm_bindgen(catch, js_name = respondText)]
    fn respond_text(
        status: u16,
        shared: &str,
        own: &str,
        body: &str,
    ) -> Result<web_sys::Response, wasm_bindgen::JsValue>;

    /// The same with a static body, kept on the JS side under `key` (its address and
    /// length) after its first answer.
    #[wasm_bindgen(catch, js_name = respondStatic)]
    fn respond_static(
        status: u16,
        shared: &str,
        own: &str,
        key: f64,
        body: &[u8],
    ) -> Result<web_sys::Response, wasm_bindgen::JsValue>;

    /// The same with a body of bytes that are not UTF-8, copied out as a `Uint8Array`.
    #[wasm_bindgen(catch, js_name = respondBytes)]
    fn respond_bytes(
        status: u16,
        shared: &str,
        own: &str,
        body: &[u8],
    ) -> Result<web_sys::Response, wasm_bindgen::JsValue>;
}

/// The core's request from the runtime's, without its body (`body` empty, not too large).
pub fn read_head(request: &web_sys::Request) -> Request {
    let head = request_head(request);
    let mut lines = head.split('\n');
    let method = Method::parse(lines.next().unwrap_or_default());
    let url = lines.next().unwrap_or_default();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            (name.to_string(), value.to_string())
        })
        .collect();
    let (origin, path, query) = split_url(url);
    Request {
        method,
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body: Vec::new(),
        body_too_large: false,
        origin,
    }
}

/// Headers whose value changes from answer to answer (the client's remaining budget, the
/// seconds to its reset): they are set on each response rather than kept with the shared set.
const OWN_HEADERS: &[&str] = &["x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"];

/// The runtime's response from the core's. A header name or value with a line break cannot be
/// sent (the runtime refuses it too) and is an error.
pub fn write_response(response: &Response) -> Result<web_sys::Response, String> {
    let (mut shared, mut own) = (String::new(), String::new());
    for (name, value) in &response.headers {
        if name.contains(['\n', '\r', ':']) || value.contains(['\n', '\r']) {
            return Err(format!("header {name:?} cannot be sent"));
        }
        let head = if OWN_HEADERS.contains(&name.as_str()) {
            &mut own
        } else {
            &mut shared
        };
        if !head.is_empty() {
            head.push('\n');
        }
        head.push_str(name);
        head.push(':');
        head.push_str(value);
    }
    match &response.body {
        // Static bytes never change or move: their address and length name them.
        Cow::Borrowed(body) if !body.is_empty() => {
            let key = (body.as_ptr() as usize as f64) * 4_294_967_296.0 + body.len() as f64;
            respond_static(response.status, &shared, &own, key, body)
        }
        body => match std::str::from_utf8(body) {
            Ok(text) => respond_text(response.status, &shared, &own, text),
            Err(_) => respond_bytes(response.status, &shared, &own, body),
        },
    }
    .map_err(|e| format!("Response refused: {e:?}"))
}

/// A bare 500, for a response the runtime refused.
pub fn internal_error() -> web_sys::Response {
    respond_text(
        500,
        "content-type:application/json; charset=utf-8",
        "",
        r#"{"error":"internal error"}"#,
    )
    .unwrap_or_else(|_| web_sys::Response::new().unwrap_throw())
}
