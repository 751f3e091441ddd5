//! The HTTP vocabulary of the core: a request, a response and a method, owned by radref.
//!
//! The core never sees a `worker::Request`. The platform layer converts to and from these
//! types, which keeps every route callable from a plain host test.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;
use std::rc::Rc;

/// The HTTP methods radref answers. Anything else is kept by name as `Other` and answered 405,
/// so the answer can say which method it refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Patch,
    Delete,
    Options,
    Other(OtherMethod),
}

impl Method {
    /// Parses a method name as sent on the wire (case-sensitive, as HTTP defines it).
    pub fn parse(name: &str) -> Method {
        match name {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            "OPTIONS" => Method::Options,
            other => Method::Other(OtherMethod::new(other)),
        }
    }

    /// The wire name of the method (of an unknown one, as much as [`OtherMethod`] keeps).
    pub fn as_str(&self) -> &str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Other(other) => other.as_str(),
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name of a method radref does not answer (`TRACE`, `CONNECT`, `PROPFIND`, `get`, ...),
/// held inline so [`Method`] stays `Copy` and usable in the endpoint table's constants.
///
/// The name is echoed in a 405 message, so it is kept printable: a byte outside HTTP's token
/// characters becomes `?`, and a name longer than [`OtherMethod::MAX_LEN`] bytes is cut and
/// ends in `...`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct OtherMethod {
    len: u8,
    name: [u8; OtherMethod::MAX_LEN],
}

impl OtherMethod {
    /// The most bytes of a name kept; every registered method name is shorter.
    pub const MAX_LEN: usize = 32;

    fn new(name: &str) -> OtherMethod {
        // RFC 9110 token characters: visible ASCII except delimiters.
        let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        let mut out = OtherMethod {
            len: 0,
            name: [0; OtherMethod::MAX_LEN],
        };
        let cut = name.len() > OtherMethod::MAX_LEN;
        let keep = if cut {
            OtherMethod::MAX_LEN - 3
        } else {
            name.len()
        };
        for (slot, b) in out.name.iter_mut().zip(name.bytes().take(keep)) {
            *slot = if token(b) { b } else { b'?' };
        }
        if cut {
            out.name[keep..].copy_from_slice(b"...");
        }
        out.len = if cut { OtherMethod::MAX_LEN } else { keep } as u8;
        out
    }

    /// The kept name (ASCII).
    pub fn as_str(&self) -> &str {
        // Only ASCII bytes are ever stored, so this cannot fail.
        std::str::from_utf8(&self.name[..usize::from(self.len)]).unwrap_or("?")
    }
}

impl fmt::Debug for OtherMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// The request headers the service reads, in lower case. Only these are ever looked up in the
/// runtime's request, each when first read, so a request's other headers (cookies, a browser's
/// dozen more) are never copied into the core. Reading a header not listed here is a bug that
/// [`Request::header`] reports in debug builds, which is how the host tests run.
pub const READ_HEADERS: &[&str] = &[
    "authorization",
    "x-api-key",
    "content-type",
    "content-length",
    "if-none-match",
    "idempotency-key",
    "cf-connecting-ip",
    "mcp-protocol-version",
    "accept",
];

/// Looks a header up in the runtime's request by its lower-case name.
pub type HeaderLookup = Rc<dyn Fn(&str) -> Option<String>>;

/// A request's headers: those of [`READ_HEADERS`], each looked up when first read (from the
/// platform) or given up front (tests, host benches).
#[derive(Clone, Default)]
pub struct RequestHeaders {
    /// The value of each header of `READ_HEADERS`, by position, once known.
    values: [OnceCell<Option<String>>; READ_HEADERS.len()],
    lookup: Option<HeaderLookup>,
}

impl RequestHeaders {
    /// Headers looked up with `lookup` when first read.
    pub fn lookup(lookup: HeaderLookup) -> RequestHeaders {
        RequestHeaders {
            values: Default::default(),
            lookup: Some(lookup),
        }
    }

    fn slot(name: &str) -> Option<usize> {
        READ_HEADERS
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
    }

    fn get(&self, name: &str) -> Option<&str> {
        let slot = Self::slot(name);
        debug_assert!(
            slot.is_some(),
            "request header {name:?} is read but not in READ_HEADERS"
        );
        self.values[slot?]
            .get_or_init(|| self.lookup.as_ref().and_then(|f| f(READ_HEADERS[slot?])))
            .as_deref()
    }

    /// Sets a header the service reads; others are dropped, as the platform never passes them.
    fn set(&mut self, name: &str, value: &str) {
        if let Some(slot) = Self::slot(name) {
            self.values[slot] = OnceCell::from(Some(value.to_string()));
        }
    }
}

/// Headers whose values are credentials: a request's `Debug` names them but never shows them,
/// so a request in a log line or a panic message leaks no key.
const SECRET_HEADERS: &[&str] = &["authorization", "x-api-key"];

impl fmt::Debug for RequestHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known = READ_HEADERS
            .iter()
            .zip(&self.values)
            .filter_map(|(name, value)| {
                let value = value.get()?.as_deref()?;
                Some((
                    *name,
                    if SECRET_HEADERS.contains(name) {
                        "[redacted]"
                    } else {
                        value
                    },
                ))
            });
        f.debug_map().entries(known).finish()
    }
}

/// An incoming request, already read into memory.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: Method,
    /// The path without the query string, e.g. `/api/v1/systems/fleischner-2017`.
    pub path: String,
    /// The raw query string without the leading `?` (may be empty).
    pub query: String,
    pub headers: RequestHeaders,
    pub body: Vec<u8>,
    /// The body passed the endpoint's cap, so it was not read whole (`body` is then empty).
    pub body_too_large: bool,
    /// Scheme and host the client addressed, e.g. `https://radref.example`, for absolute links.
    pub origin: String,
}

impl Request {
    /// The client's address as the edge reports it (`CF-Connecting-IP`); requests without one
    /// share the bucket `unknown`.
    pub fn client_ip(&self) -> &str {
        self.header("cf-connecting-ip")
            .map(str::trim)
            .filter(|ip| !ip.is_empty())
            .unwrap_or("unknown")
    }

    /// A request with no headers and no body, handy for tests.
    pub fn new(method: Method, target: &str) -> Request {
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p, q),
            None => (target, ""),
        };
        Request {
            method,
            path: path.to_string(),
            query: query.to_string(),
            headers: RequestHeaders::default(),
            body: Vec::new(),
            body_too_large: false,
            origin: "http://localhost".to_string(),
        }
    }

    /// Sets a header (builder style); one the service never reads is dropped.
    pub fn with_header(mut self, name: &str, value: &str) -> Request {
        self.headers.set(name, value);
        self
    }

    /// Sets the body (builder style).
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
        self
    }

    /// A header's value, looked up case-insensitively (repeated headers joined with `, `).
    /// `name` must be one of [`READ_HEADERS`].
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)
    }

    /// Whether the body is declared as JSON (`Content-Type: application/json`, any parameters).
    pub fn is_json(&self) -> bool {
        self.header("content-type")
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .eq_ignore_ascii_case("application/json")
    }

    /// The decoded query parameters, in order. `+` decodes to a space, as forms send it.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        parse_query(&self.query)
    }
}

/// An outgoing response. The body is borrowed when it is prebuilt at compile time.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    /// Names in lower case, each once; a name or value the code spells out costs no copy.
    pub headers: Vec<(&'static str, Cow<'static, str>)>,
    pub body: Cow<'static, [u8]>,
}

/// Room for the headers of most answers (content type, caching, CORS, limits), so that
/// adding them does not grow the list.
const HEADERS_CAPACITY: usize = 10;
/// Room for a small JSON answer (health, an error) before its writer has to grow.
const JSON_BODY_CAPACITY: usize = 512;

/// The content type of every JSON answer.
pub const JSON: &str = "application/json; charset=utf-8";

/// A value written as JSON into a buffer of `capacity` bytes to begin with (a large answer
/// written into a small buffer is copied again at every growth). Serialising our own plain
/// data types cannot fail; an empty object is a safe fallback.
pub fn json_bytes(value: &impl serde::Serialize, capacity: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(capacity);
    if serde_json::to_writer(&mut body, value).is_err() {
        body = b"{}".to_vec();
    }
    body
}

impl Response {
    /// An empty response with a status.
    pub fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::with_capacity(HEADERS_CAPACITY),
            body: Cow::Borrowed(&[]),
        }
    }

    /// A JSON response from a serialisable value.
    pub fn json(status: u16, value: &impl serde::Serialize) -> Response {
        Response::bytes(status, JSON, json_bytes(value, JSON_BODY_CAPACITY))
    }

    /// A response with the given content type and body.
    pub fn bytes(
        status: u16,
        content_type: impl Into<Cow<'static, str>>,
        body: impl Into<Cow<'static, [u8]>>,
    ) -> Response {
        Response {
            status,
            headers: {
                let mut headers = Vec::with_capacity(HEADERS_CAPACITY);
                headers.push(("content-type", content_type.into()));
                headers
            },
            body: body.into(),
        }
    }

    /// Sets a header, replacing any earlier value of the same name. `name` is lower case.
    pub fn set_header(&mut self, name: &'static str, value: impl Into<Cow<'static, str>>) {
        debug_assert!(
            !name.bytes().any(|b| b.is_ascii_uppercase()),
            "header names are lower case: {name}"
        );
        let value = value.into();
        match self.headers.iter_mut().find(|(n, _)| *n == name) {
            Some((_, old)) => *old = value,
            None => self.headers.push((name, value)),
        }
    }

    /// Sets a header (builder style).
    pub fn with_header(
        mut self,
        name: &'static str,
        value: impl Into<Cow<'static, str>>,
    ) -> Response {
        self.set_header(name, value);
        self
    }

    /// The value of a header, looked up case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_ref())
    }
}

/// Origin, path and query of an absolute URL as the runtime serialises `Request.url` (WHATWG,
/// http or https): the first `/` after `://` starts the path, which is already percent-encoded,
/// so the first `?` starts the query and the first `#` the fragment, which is dropped. The
/// origin is scheme, host and port: user information before an `@` is not part of it.
pub fn split_url(url: &str) -> (String, &str, &str) {
    let authority = url.find("://").map_or(0, |i| i + 3);
    let path_at = url[authority..]
        .find('/')
        .map_or(url.len(), |i| authority + i);
    let (origin, rest) = url.split_at(path_at);
    let origin = match origin[authority..].rfind('@') {
        Some(at) => format!("{}{}", &origin[..authority], &origin[authority + at + 1..]),
        None => origin.to_string(),
    };
    let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    (origin, if path.is_empty() { "/" } else { path }, query)
}

/// Decodes an `application/x-www-form-urlencoded` query string.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// Percent-decodes a query component; invalid escapes are kept literally and invalid UTF-8
/// is replaced, so decoding never fails.
pub fn percent_decode(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request whose headers come from `lookup`, counting the lookups made.
    fn looked_up(
        values: &'static [(&'static str, &'static str)],
    ) -> (Request, Rc<std::cell::Cell<usize>>) {
        let calls = Rc::new(std::cell::Cell::new(0));
        let counter = calls.clone();
        let mut request = Request::new(Method::Get, "/api/v1/health");
        request.headers = RequestHeaders::lookup(Rc::new(move |name: &str| {
            counter.set(counter.get() + 1);
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }));
        (request, calls)
    }

    #[test]
    fn debug_names_credentials_but_never_shows_them() {
        let request = Request::new(Method::Get, "/api/v1/context")
            .with_header("Authorization", "Bearer rr_live_secret")
            .with_header("X-API-Key", "rr_live_other")
            .with_header("If-None-Match", "\"abc\"");
        let shown = format!("{request:?}");
        assert!(
            !shown.contains("secret") && !shown.contains("other"),
            "{shown}"
        );
        assert!(shown.contains("authorization") && shown.contains("[redacted]"));
        assert!(
            shown.contains("\\\"abc\\\""),
            "other headers still shown: {shown}"
        );
    }

    #[test]
    fn headers_are_looked_up_when_first_read_and_only_then() {
        let (request, calls) = looked_up(&[("if-none-match", "\"abc\""), ("cookie", "secret")]);
        assert_eq!(calls.get(), 0, "nothing is looked up before it is read");
        assert_eq!(request.header("If-None-Match"), Some("\"abc\""));
        assert_eq!(request.header("if-none-match"), Some("\"abc\""));
        assert_eq!(request.header("authorization"), None);
        assert_eq!(request.header("authorization"), None);
        assert_eq!(
            calls.get(),
            2,
            "each header is looked up once, present or not"
        );
        assert!(!format!("{request:?}").contains("secret"));
    }

    #[test]
    fn headers_the_service_never_reads_are_not_kept() {
        let request = Request::new(Method::Get, "/")
            .with_header("Cookie", "secret")
            .with_header("Authorization", "Bearer k");
        assert_eq!(request.header("authorization"), Some("Bearer k"));
        assert!(!format!("{request:?}").contains("secret"));
    }

    #[test]
    #[should_panic(expected = "not in READ_HEADERS")]
    fn reading_an_unlisted_header_is_a_bug() {
        let _ = Request::new(Method::Get, "/").header("cookie");
    }

    #[test]
    fn urls_split_as_the_runtime_serialises_them() {
        assert_eq!(
            split_url("https://radref.example/api/v1/search?q=a+b&limit=3"),
            (
                "https://radref.example".into(),
                "/api/v1/search",
                "q=a+b&limit=3"
            )
        );
        assert_eq!(
            split_url("http://127.0.0.1:8787/"),
            ("http://127.0.0.1:8787".into(), "/", "")
        );
        assert_eq!(
            split_url("http://h/p?x=1#frag"),
            ("http://h".into(), "/p", "x=1")
        );
        assert_eq!(split_url("http://h/p#f?x"), ("http://h".into(), "/p", ""));
        assert_eq!(split_url("http://h"), ("http://h".into(), "/", ""));
        assert_eq!(
            split_url("http://u:p@h:81/a"),
            ("http://h:81".into(), "/a", "")
        );
    }

    #[test]
    fn an_unknown_method_keeps_its_name() {
        assert_eq!(Method::parse("TRACE").as_str(), "TRACE");
        assert_eq!(Method::parse("PROPFIND").to_string(), "PROPFIND");
        // Methods are case-sensitive: "get" is not GET.
        assert_eq!(Method::parse("get").as_str(), "get");
        assert_ne!(Method::parse("get"), Method::Get);
        assert_eq!(Method::parse("TRACE"), Method::parse("TRACE"));
        assert_ne!(Method::parse("TRACE"), Method::parse("CONNECT"));
        // What is echoed stays a printable token of bounded length.
        assert_eq!(Method::parse("BAD \"x\"\n").as_str(), "BAD??x??");
        assert_eq!(Method::parse("Ü").as_str(), "??");
        let long = Method::parse(&"X".repeat(1000));
        assert_eq!(long.as_str().len(), OtherMethod::MAX_LEN);
        assert!(long.as_str().ends_with("XXX..."));
        assert_eq!(Method::parse("").as_str(), "");
    }

    #[test]
    fn query_decodes_plus_and_percent() {
        let pairs = parse_query("q=lung+rads%204B&organ=&x");
        assert_eq!(
            pairs,
            vec![
                ("q".into(), "lung rads 4B".into()),
                ("organ".into(), "".into()),
                ("x".into(), "".into())
            ]
        );
    }

    #[test]
    fn bad_escapes_are_kept() {
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
        assert_eq!(percent_decode("%C3%A9"), "é");
    }

    #[test]
    fn json_content_type_is_recognised_with_parameters() {
        let r = |ct: &str| Request::new(Method::Post, "/").with_header("Content-Type", ct);
        assert!(r("application/json").is_json());
        assert!(r("Application/JSON; charset=utf-8").is_json());
        assert!(!r("text/plain").is_json());
        assert!(!r("application/jsonp").is_json());
        assert!(!Request::new(Method::Post, "/").is_json());
    }

    #[test]
    fn request_target_splits_query() {
        let r = Request::new(Method::Get, "/a/b?c=d");
        assert_eq!(r.path, "/a/b");
        assert_eq!(r.query, "c=d");
    }
}
