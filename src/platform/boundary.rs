//! The request and the response across the wasm/JS boundary, in one call each way.
//!
//! worker's own types cross it piecemeal: `worker::Request` reads the method, URL, headers and
//! `cf` object in four calls when it is made, iterating the headers costs several calls per
//! header, and a `worker::Response` costs a `Headers` object plus one call and two string
//! copies per header, then a copy of the body into Rust's heap and another into a
//! `Uint8Array`. At the rate a corpus route answers, those calls were most of a request's
//! time (see README, Performance). Here a few lines of JavaScript do the same work on the JS
//! side: the request's method and URL come across as one string, each header the core reads
//! (and only those) in one call when it first reads it, and a response goes back as one call
//! with its status, the number of its header set (the headers many answers share, parsed once
//! into a `Headers` object), the headers of this answer alone, and its body: a string, or for a
//! prebuilt body a view of wasm memory that the runtime copies when it makes the `Response`.

use crate::http::{split_url, Method, Request, RequestHeaders, Response};
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::UnwrapThrowExt;
use worker::worker_sys::web_sys;

#[wasm_bindgen(inline_js = r#"
export function requestHead(request) {
  const method = request.method;
  return method === "GET" ? request.url : method + "\n" + request.url;
}

// One header of a request, when the core first reads it (only those of http::READ_HEADERS
// ever are), so the cost does not grow with what the client sends.
export function requestHeader(request, name) {
  return request.headers.get(name) ?? undefined;
}

// The header sets many answers share (content type, caching, CORS), by the number Rust gave
// each. A Response copies a Headers object it is given without converting and validating
// each name and value again, which cost more than the rest of a small answer.
const headerSets = [];

function parseHeaders(text, headers) {
  if (text.length > 0) {
    for (const line of text.split("\n")) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon), line.slice(colon + 1));
    }
  }
  return headers;
}

export function defineHeaderSet(index, text) {
  headerSets[index] = parseHeaders(text, new Headers());
}

// A body crosses one of two ways. A larger text body written for this answer (a search
// answer) crosses as a JS string. Any other body (a prebuilt one: a system's detail, organs,
// coverage, the OpenAPI document; or a small one: health, an error) crosses as a view of wasm
// memory, which the Response copies before this call returns, so nothing is made for it on
// the JS side. Strings are kept for the larger answers because of how workerd collects
// garbage: every request leaves a few hundred bytes that survive the next minor collection,
// so its pause grows with the requests since the last one. Answers that allocate nothing on
// the JS heap make those collections rarer and each pause longer, which measured as a worse
// p99 (see STRING_BODY_MIN and README, Performance).
export function respond(status, set, own, body) {
  const response = new Response(body.length > 0 ? body : null, { status, headers: headerSets[set] });
  if (own !== undefined) parseHeaders(own, response.headers);
  return response;
}
"#)]
extern "C" {
    /// `METHOD\nURL`, or only the URL of a GET (most requests), which saves joining them.
    #[wasm_bindgen(js_name = requestHead)]
    fn request_head(request: &web_sys::Request) -> String;

    /// The value of the header `name` (lower case; repeated headers joined with `, `).
    #[wasm_bindgen(js_name = requestHeader)]
    fn request_header(request: &web_sys::Request, name: &str) -> Option<String>;

    /// Parses the headers `name:value`, one per line, into the `Headers` of set `index`,
    /// replacing the set that had that number.
    #[wasm_bindgen(js_name = defineHeaderSet)]
    fn define_header_set(index: u32, text: &str);

    /// A `Response` with the status, the headers of set `set` and those of `own` (the lines
    /// that change from answer to answer; `None` crosses without a string), and a UTF-8 body, which crosses as a JS string.
    #[wasm_bindgen(catch, js_name = respond)]
    fn respond_text(
        status: u16,
        set: u32,
        own: Option<&str>,
        body: &str,
    ) -> Result<web_sys::Response, wasm_bindgen::JsValue>;

    /// The same with a body of bytes, which crosses as a view of wasm memory.
    #[wasm_bindgen(catch, js_name = respond)]
    fn respond_bytes(
        status: u16,
        set: u32,
        own: Option<&str>,
        body: &[u8],
    ) -> Result<web_sys::Response, wasm_bindgen::JsValue>;
}

/// How many header sets are kept; past that, numbering starts again (the corpus routes use a
/// handful).
const HEADER_SETS: usize = 64;

thread_local! {
    /// The text of each header set defined on the JS side, by its number. (wasm32 has one
    /// thread, and the JS side lives as long as this instance.)
    static HEADER_SET_TEXTS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The number of the header set with this text, defining it on the JS side the first time.
fn header_set(text: &str) -> u32 {
    HEADER_SET_TEXTS.with(|sets| {
        let mut sets = sets.borrow_mut();
        if let Some(index) = sets.iter().position(|known| known == text) {
            return index as u32;
        }
        if sets.len() >= HEADER_SETS {
            sets.clear();
        }
        sets.push(text.to_string());
        let index = (sets.len() - 1) as u32;
        define_header_set(index, text);
        index
    })
}

/// The core's request from the runtime's, without its body (`body` empty, not too large). Its
/// headers are looked up in `request` when the core first reads each.
pub fn read_head(request: &web_sys::Request) -> Request {
    let head = request_head(request);
    // A URL has no line break (the runtime's parser drops them), nor has a method.
    let (method, url) = head.split_once('\n').unwrap_or(("GET", &head));
    let (origin, path, query) = split_url(url);
    // The JS object itself, not `Request.clone()` (which copies the request).
    let source = Clone::clone(request);
    Request {
        method: Method::parse(method),
        path: path.to_string(),
        query: query.to_string(),
        headers: RequestHeaders::lookup(Rc::new(move |name| request_header(&source, name))),
        body: Vec::new(),
        body_too_large: false,
        origin,
    }
}

/// Headers whose value changes from answer to answer (the client's remaining budget, the
/// seconds to its reset): they are set on each response rather than kept with the shared set.
const OWN_HEADERS: &[&str] = &["x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"];

/// The size from which a text body written for one answer crosses as a JS string rather than
/// as a view of wasm memory. Measured in `make bench` (README, Performance): a search answer
/// (about 5 KB) as a string kept the p99 at one connection at 4–5 ms instead of 12–13 ms, as
/// its garbage paces the runtime's minor collections; a small answer (health, an error) as a
/// string only costs the decode, 4% of health's throughput.
const STRING_BODY_MIN: usize = 2048;

/// The size past which a written body crosses as a view of wasm memory again: decoding a
/// grounded report's answer (tens to hundreds of KB) into a JS string, for the runtime to
/// encode it back, was about a tenth of the grounding route's time (README, Performance).
const STRING_BODY_MAX: usize = 32 * 1024;

/// The runtime's response from the core's. A header name or value with a line break cannot be
/// sent (the runtime refuses it too) and is an error.
pub fn write_response(response: &Response) -> Result<web_sys::Response, String> {
    let (mut shared, mut own) = (String::with_capacity(256), String::new());
    for (name, value) in &response.headers {
        if name.contains(['\n', '\r', ':']) || value.contains(['\n', '\r']) {
            return Err(format!("header {name:?} cannot be sent"));
        }
        let head = if OWN_HEADERS.contains(name) {
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
    let set = header_set(&shared);
    let own = (!own.is_empty()).then_some(own.as_str());
    match &response.body {
        // Prebuilt bytes (the corpus's static answers), small bodies and large ones are
        // copied by the runtime from wasm memory; a body written for this answer from 2 to 32
        // KiB (a search answer) crosses as text.
        Cow::Owned(body) if (STRING_BODY_MIN..=STRING_BODY_MAX).contains(&body.len()) => {
            match std::str::from_utf8(body) {
                Ok(text) => respond_text(response.status, set, own, text),
                Err(_) => respond_bytes(response.status, set, own, body),
            }
        }
        Cow::Owned(body) => respond_bytes(response.status, set, own, body),
        Cow::Borrowed(body) => respond_bytes(response.status, set, own, body),
    }
    .map_err(|e| format!("Response refused: {e:?}"))
}

/// A bare 500, for a response the runtime refused.
pub fn internal_error() -> web_sys::Response {
    respond_text(
        500,
        header_set("content-type:application/json; charset=utf-8"),
        None,
        r#"{"error":"internal error"}"#,
    )
    .unwrap_or_else(|_| web_sys::Response::new().unwrap_throw())
}
