//! The application as a function: `handle(request) -> response`.
//!
//! Everything the service does to a request happens here or below, with no `worker::` type in
//! sight. What the platform provides (the clock, logging, storage, queues, rate limits) comes in
//! through the [`Services`] trait, so a host test drives [`handle`] with an in-memory
//! implementation and the wasm build with the Cloudflare bindings.

use crate::auth::StoredKey;
use crate::config::Config;
use crate::corpus_api;
use crate::db::{DbError, Row, Statement};
use crate::error::{allow_header, ApiError, ErrorFormat};
use crate::http::{Method, Request, Response};
use crate::ratelimit::RateLimiter;
use crate::router::Route;
use serde_json::json;

/// The version of the HTTP interface, as the OpenAPI document states it.
pub const API_VERSION: &str = "1.0.0";

/// Request headers a browser may send cross-origin.
const ALLOW_HEADERS: &str =
    "Authorization, X-API-Key, Content-Type, If-None-Match, Idempotency-Key";
/// Response headers a browser script may read cross-origin.
const EXPOSE_HEADERS: &str =
    "ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Idempotent-Replayed";

/// What the platform provides to the core.
///
/// The wasm build implements it on the Worker's bindings; tests implement it in memory.
#[allow(async_fn_in_trait)] // The core is single-threaded (wasm); futures need not be Send.
pub trait Services {
    /// Milliseconds since the Unix epoch. The core never reads a clock itself: on wasm32
    /// `SystemTime::now()` panics.
    fn now_ms(&self) -> u64;

    /// Writes a line to the platform log. Callers never pass secrets or keys.
    fn log(&self, line: &str);

    /// The stored API key with this public id, if any.
    async fn find_key(&self, id: &str) -> Result<Option<StoredKey>, ApiError>;

    /// Runs one statement and returns its rows.
    async fn query(&self, statement: Statement) -> Result<Vec<Row>, DbError>;

    /// Runs statements atomically: all of them or none.
    async fn batch(&self, statements: Vec<Statement>) -> Result<(), DbError>;

    /// `bytes` bytes from a cryptographically secure generator, hex-encoded.
    fn random_hex(&self, bytes: usize) -> Result<String, ApiError>;

    /// Sends messages to the webhook deliveries queue, all or none. An error means the caller
    /// must treat them as not sent; its text is for the log.
    async fn enqueue(&self, messages: Vec<QueueMessage>) -> Result<(), String>;

    /// Makes one outgoing POST, never following a redirect, giving up after `timeout_ms`.
    async fn post(&self, request: Outgoing) -> PostResult;
}

/// A message for the webhook deliveries queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueMessage {
    pub body: serde_json::Value,
    /// Seconds before the queue hands the message to the consumer.
    pub delay_secs: u32,
}

/// An outgoing HTTP POST.
#[derive(Clone, Debug, PartialEq)]
pub struct Outgoing {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub timeout_ms: u64,
}

/// What became of an outgoing POST: the status the peer answered, or why there was none.
#[derive(Clone, Debug, PartialEq)]
pub enum PostResult {
    Status(u16),
    /// A network error, a refused connection or a reset; the text is safe to show its owner.
    Failed(String),
    TimedOut,
}

/// The application state shared by all requests of an isolate.
#[derive(Debug)]
pub struct App {
    pub config: Config,
    /// Per-client counters of the corpus routes.
    pub corpus_limiter: RateLimiter,
    /// Per-key counters of the template and webhook routes.
    pub key_limiter: RateLimiter,
}

impl App {
    /// An application with the given configuration.
    pub fn new(config: Config) -> App {
        let corpus_limiter = RateLimiter::new(config.corpus_rate_limit, config.corpus_rate_window);
        let key_limiter = RateLimiter::new(config.key_rate_limit, config.key_rate_window);
        App {
            config,
            corpus_limiter,
            key_limiter,
        }
    }
}

/// Handles one request completely: routing, method checks, CORS preflight, the handler, the
/// error format and the headers every response carries.
pub async fn handle<S: Services>(app: &App, services: &S, request: Request) -> Response {
    let format = ErrorFormat::for_path(&request.path);
    let route = Route::resolve(&request.path);
    let mut response = match (&route, request.method) {
        // Preflight is answered before any key check or rate limit, for every path, so a
        // browser always learns what it may send.
        (_, Method::Options) => preflight(route.as_ref()),
        (None, _) => error_response(
            services,
            ApiError::not_found(format!("no route for {}", request.path)),
            format,
        ),
        (Some(route), method) if !route.allow().contains(&method) => error_response(
            services,
            ApiError::MethodNotAllowed {
                method,
                allow: route.allow(),
            },
            format,
        ),
        (Some(route), _) => {
            let limit = route.is_corpus().then(|| {
                app.corpus_limiter
                    .check(client_ip(&request), services.now_ms() / 1000)
            });
            let mut response = match limit {
                Some(d) if !d.allowed => error_response(
                    services,
                    ApiError::RateLimited {
                        retry_after: d.reset,
                    },
                    format,
                ),
                _ => match dispatch(app, services, route, &request).await {
                    Ok(response) => response,
                    Err(err) => error_response(services, err, format),
                },
            };
            if let Some(d) = limit {
                response.set_header("x-ratelimit-limit", d.limit.to_string());
                response.set_header("x-ratelimit-remaining", d.remaining.to_string());
                response.set_header("x-ratelimit-reset", d.reset.to_string());
            }
            response
        }
    };
    finish(&mut response, request.method);
    response
}

/// Runs the handler of a resolved route.
async fn dispatch<S: Services>(
    app: &App,
    services: &S,
    route: &Route,
    request: &Request,
) -> Result<Response, ApiError> {
    match route {
        Route::Health => Ok(health(app)),
        Route::Organs => corpus_api::organs(request),
        Route::Systems => corpus_api::systems(request),
        Route::System(slug) => corpus_api::system(request, slug),
        Route::Search => corpus_api::search(request),
        Route::Changes => corpus_api::changes(request),
        Route::ChangesRss => corpus_api::changes_rss(request),
        Route::Coverage => corpus_api::coverage(request),
        Route::LlmsTxt => corpus_api::llms_txt(request),
        Route::Context => corpus_api::context(services, request).await,
        Route::Mcp => Ok(crate::mcp::handle(request)),
        Route::Templates(t) => crate::templates::handle(app, services, t, request).await,
        Route::Webhooks(w) => crate::webhooks::api::handle(app, services, w, request).await,
        Route::Events => crate::webhooks::api::handle_events(app, services, request).await,
        Route::OpenApi => Ok(corpus_api::cached(
            request,
            Response::bytes(200, "application/json; charset=utf-8", openapi_bytes()),
        )),
    }
}

/// The OpenAPI document, serialised once per isolate.
fn openapi_bytes() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| serde_json::to_vec(&crate::openapi::document()).unwrap_or_default())
}

/// The client's address as the edge reports it; requests without one share a bucket.
fn client_ip(request: &Request) -> &str {
    request
        .header("cf-connecting-ip")
        .map(str::trim)
        .filter(|ip| !ip.is_empty())
        .unwrap_or("unknown")
}

/// `GET /api/v1/health`: liveness, the build's version and the corpus it carries.
fn health(app: &App) -> Response {
    Response::json(
        200,
        &json!({
            "status": "ok",
            "service": "radref",
            "version": env!("CARGO_PKG_VERSION"),
            "api_version": API_VERSION,
            "environment": app.config.environment,
            "corpus": {
                "hash": crate::build_info::CORPUS_HASH,
                "systems": crate::corpus::compiled::TOTALS.systems,
                "clinical_lines": crate::corpus::compiled::TOTALS.lines,
            },
        }),
    )
    .with_header("cache-control", "no-store")
}

/// The answer to a CORS preflight (or a plain OPTIONS) on any path.
fn preflight(route: Option<&Route>) -> Response {
    let methods: Vec<Method> = match route {
        Some(route) => route.allow().to_vec(),
        None => vec![Method::Get, Method::Head],
    };
    let mut with_options = methods;
    with_options.push(Method::Options);
    Response::empty(204)
        .with_header("allow", allow_header(&with_options))
        .with_header("access-control-allow-methods", allow_header(&with_options))
        .with_header("access-control-allow-headers", ALLOW_HEADERS)
        .with_header("access-control-max-age", "86400")
}

fn error_response<S: Services>(services: &S, err: ApiError, format: ErrorFormat) -> Response {
    if let Some(line) = err.log_line() {
        services.log(&line);
    }
    err.into_response(format)
}

/// Adds the headers every response carries and drops the body of a HEAD answer.
fn finish(response: &mut Response, method: Method) {
    response.set_header("access-control-allow-origin", "*");
    response.set_header("access-control-expose-headers", EXPOSE_HEADERS);
    response.set_header("x-content-type-options", "nosniff");
    if method == Method::Head {
        response.body = std::borrow::Cow::Borrowed(&[]);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::host::{block_on, HostServices};

    pub fn call(request: Request) -> Response {
        let app = App::new(Config::default());
        block_on(handle(&app, &HostServices::default(), request))
    }

    fn json_body(r: &Response) -> serde_json::Value {
        serde_json::from_slice(&r.body).expect("json body")
    }

    #[test]
    fn health_reports_version_and_corpus_hash() {
        let r = call(Request::new(Method::Get, "/api/v1/health"));
        assert_eq!(r.status, 200);
        let body = json_body(&r);
        assert_eq!(body["status"], "ok");
        assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(
            body["corpus"]["hash"].as_str().unwrap().len(),
            64,
            "sha-256 hex"
        );
    }

    #[test]
    fn every_response_has_cors_and_nosniff() {
        for (method, path) in [
            (Method::Get, "/api/v1/health"),
            (Method::Get, "/nope"),
            (Method::Post, "/api/v1/health"),
            (Method::Options, "/api/v1/health"),
        ] {
            let r = call(Request::new(method, path));
            assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}");
            assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
            let exposed = r.header("access-control-expose-headers").unwrap();
            assert!(exposed.contains("X-RateLimit-Remaining") && exposed.contains("ETag"));
        }
    }

    #[test]
    fn unknown_path_is_json_404() {
        let r = call(Request::new(Method::Get, "/api/v1/nothing"));
        assert_eq!(r.status, 404);
        assert!(json_body(&r)["error"].is_string());
        let r = call(Request::new(Method::Get, "/api/v1/templates/x/y/z"));
        assert_eq!(r.status, 404);
        assert_eq!(json_body(&r)["error"]["code"], "not_found");
    }

    #[test]
    fn wrong_method_is_405_with_allow() {
        let r = call(Request::new(Method::Delete, "/api/v1/health"));
        assert_eq!(r.status, 405);
        assert_eq!(r.header("allow"), Some("GET, HEAD"));
    }

    #[test]
    fn preflight_is_204_with_allowed_headers() {
        let r = call(
            Request::new(Method::Options, "/api/v1/systems")
                .with_header("Origin", "https://example.org")
                .with_header("Access-Control-Request-Method", "POST"),
        );
        assert_eq!(r.status, 204);
        assert!(r.body.is_empty());
        let methods = r.header("access-control-allow-methods").unwrap();
        assert!(methods.contains("GET"));
        let headers = r.header("access-control-allow-headers").unwrap();
        for h in ["Authorization", "X-API-Key", "Content-Type"] {
            assert!(headers.contains(h));
        }
    }

    #[test]
    fn head_has_no_body() {
        let r = call(Request::new(Method::Head, "/api/v1/health"));
        assert_eq!(r.status, 200);
        assert!(r.body.is_empty());
    }
}
