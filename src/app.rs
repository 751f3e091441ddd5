//! The application as a function: `handle(request) -> response`, on top of the house.
//!
//! The endpoint table (`routes`) resolves the request; this module applies what the row
//! declares — the preflight, 404 and 405, the per-client limit, the key and its scope, the
//! per-key limit, the error format — and hands the request to its feature's handlers (`api`).
//! What the platform provides comes in through [`Services`], so a host test drives [`handle`]
//! with an in-memory or SQLite implementation and the wasm build with the Cloudflare bindings.

use crate::api;
use crate::auth;
use crate::call::Call;
use crate::corpus::compiled;
use crate::error::{allow_header, ApiError, ErrorFormat};
use crate::http::{Method, Request, Response};
use crate::ratelimit::{Decision, Shared};
use crate::routes::{self, Access, Endpoint, Limit, Op, PathParams, Resolution};
use crate::services::{App, Services};

/// Request headers a browser may send cross-origin.
const ALLOW_HEADERS: &str =
    "Authorization, X-API-Key, Content-Type, If-None-Match, Idempotency-Key";
/// Response headers a browser script may read cross-origin; an answer names those it carries.
const EXPOSE_HEADERS: &[&str] = &[
    "ETag",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "Retry-After",
    "Location",
    "Idempotent-Replayed",
];

/// Handles one request completely: resolution, preflight, access, limits, the handler, the
/// error format and the headers every response carries.
pub async fn handle<S: Services>(app: &App, services: &S, request: Request) -> Response {
    let mut response = if request.method == Method::Options {
        // Answered before any key check or rate limit, for every path, so a browser always
        // learns what it may send.
        preflight(routes::allowed(&request.path))
    } else {
        match routes::resolve(request.method, &request.path) {
            Resolution::NotFound { errors } => error_response(
                services,
                ApiError::not_found(format!("no route for {}", request.path)),
                errors,
            ),
            Resolution::WrongMethod { allow, errors } => error_response(
                services,
                ApiError::MethodNotAllowed {
                    method: request.method,
                    allow,
                },
                errors,
            ),
            Resolution::Found(endpoint, params) => {
                serve(app, services, endpoint, params, &request).await
            }
        }
    };
    finish(&mut response, request.method);
    response
}

/// Serves a resolved endpoint under its row's access rule and limit.
async fn serve<S: Services>(
    app: &App,
    services: &S,
    endpoint: &'static Endpoint,
    params: PathParams,
    request: &Request,
) -> Response {
    // Before the limiter and the key: an oversized body costs nothing but this answer.
    let cap = endpoint.op.body_limit();
    if request.body_too_large || request.body.len() > cap {
        return error_response(
            services,
            ApiError::PayloadTooLarge { limit: cap },
            endpoint.errors,
        );
    }
    // The clock is read only for a limiter or a key check; an open, unlimited route (health)
    // needs neither.
    let now_secs = match (endpoint.limit, endpoint.access) {
        (Limit::None, Access::Open) => 0,
        _ => services.now_ms() / 1000,
    };
    let mut decision = (endpoint.limit == Limit::Client)
        .then(|| app.corpus_limiter.check(request.client_ip(), now_secs));
    // What the isolate allows, the location's shared limiter may still refuse.
    if let Some(d) = decision.as_mut().filter(|d| d.allowed) {
        if services
            .shared_limit(Shared::Corpus, request.client_ip())
            .await
            == Some(false)
        {
            *d = Shared::refused(d.limit);
        }
    }
    let result = match decision {
        Some(d) if !d.allowed => Err(ApiError::RateLimited {
            retry_after: d.reset,
        }),
        _ => {
            let who = match endpoint.access {
                Access::Open => Ok(None),
                Access::Key(scope) => key_check(app, services, request, scope, now_secs)
                    .await
                    .map(Some),
            };
            match who {
                // A failed key check carries no per-key budget.
                Err(err) => Err(err),
                Ok(who) => {
                    if let (Limit::Key, Some(p)) = (endpoint.limit, &who) {
                        let mut d = app.key_limiter.check(&p.key_id, now_secs);
                        if d.allowed
                            && services.shared_limit(Shared::Key, &p.key_id).await == Some(false)
                        {
                            d = Shared::refused(d.limit);
                        }
                        decision = Some(d);
                    }
                    let call = Call {
                        app,
                        services,
                        request,
                        params,
                        who,
                        charged: Default::default(),
                    };
                    match decision {
                        Some(d) if !d.allowed => Err(ApiError::RateLimited {
                            retry_after: d.reset,
                        }),
                        _ => dispatch(endpoint.op, &call).await,
                    }
                }
            }
        }
    };
    // A handler may have spent more of the client's budget (a costly grounding): the headers
    // report what is left after it.
    if let Some(d) = decision
        .as_mut()
        .filter(|d| d.allowed && endpoint.limit == Limit::Client)
    {
        *d = app.corpus_limiter.peek(request.client_ip(), now_secs);
    }
    let mut response = result.unwrap_or_else(|err| error_response(services, err, endpoint.errors));
    if let Some(d) = decision {
        rate_headers(&mut response, d);
    }
    response
}

/// Checks the request's key for `scope`. Each failure (401, 403) counts against the client's
/// address; once it has failed too often, the key is not even looked up (429) until the
/// window ends, so guessing keys costs the guesser, not the database.
async fn key_check<S: Services>(
    app: &App,
    services: &S,
    request: &Request,
    scope: routes::Scope,
    now_secs: u64,
) -> Result<crate::call::Principal, ApiError> {
    let ip = request.client_ip();
    let budget = app.auth_failures.peek(ip, now_secs);
    if !budget.allowed {
        return Err(ApiError::RateLimited {
            retry_after: budget.reset,
        });
    }
    let result = auth::authenticate(services, request, scope).await;
    if let Err(err) = &result {
        if matches!(err.status(), 401 | 403) {
            app.auth_failures.check(ip, now_secs);
        }
    }
    result
}

/// Runs the operation's handler: one arm per feature, whose own `dispatch` is exhaustive.
async fn dispatch<S: Services>(op: Op, call: &Call<'_, S>) -> Result<Response, ApiError> {
    match op {
        Op::Templates(op) => {
            // A template's bindings name systems only once its stored fields are read, and it
            // writes: every pack is read first.
            read_packs(call.services, compiled::unread_packs()).await?;
            api::templates::dispatch(op, call).await
        }
        Op::Webhooks(op) => api::webhooks::dispatch(op, call).await,
        Op::Service(_) | Op::Corpus(_) | Op::Context(_) | Op::Mcp(_) => loop {
            // These read the corpus and nothing else, so where the build placed the bodies in
            // the store, an answer that met an unread pack is dropped and given again once the
            // packs it met are read: each pass reads at least one more pack, so this ends.
            call.begin_pass();
            let (result, unread) = compiled::noting_unread(|| read_corpus(op, call));
            if unread.is_empty() {
                return result;
            }
            read_packs(call.services, unread).await?;
        },
    }
}

/// The operations that only read the corpus, answered from memory.
fn read_corpus<S: Services>(op: Op, call: &Call<'_, S>) -> Result<Response, ApiError> {
    match op {
        Op::Service(op) => api::service::dispatch(op, call),
        Op::Corpus(op) => api::corpus::dispatch(op, call),
        Op::Context(op) => api::context::dispatch(op, call),
        Op::Mcp(op) => api::mcp::dispatch(op, call),
        Op::Templates(_) | Op::Webhooks(_) => {
            Err(ApiError::internal(format!("{op:?} is not a corpus read")))
        }
    }
}

/// Reads packs of the corpus store (`corpus::compiled::STORE_PACKS` indices) into the isolate,
/// in parallel; a failure is a 503 that the next request retries.
async fn read_packs<S: Services>(services: &S, packs: Vec<usize>) -> Result<(), ApiError> {
    let reads = packs.iter().map(|&i| async move {
        let bytes = services.corpus_pack(compiled::STORE_PACKS[i]).await?;
        compiled::install_pack(i, bytes)
    });
    futures_util::future::join_all(reads)
        .await
        .into_iter()
        .collect::<Result<(), String>>()
        .map_err(|cause| ApiError::Unavailable {
            cause: format!("corpus store: {cause}"),
        })
}

fn rate_headers(response: &mut Response, d: Decision) {
    response.set_header("x-ratelimit-limit", d.limit.to_string());
    response.set_header("x-ratelimit-remaining", d.remaining.to_string());
    response.set_header("x-ratelimit-reset", d.reset.to_string());
}

/// The answer to a CORS preflight (or a plain OPTIONS) on any path.
fn preflight(allowed: Option<Vec<Method>>) -> Response {
    let mut methods = allowed.unwrap_or_else(|| vec![Method::Get, Method::Head]);
    methods.push(Method::Options);
    Response::empty(204)
        .with_header("allow", allow_header(&methods))
        .with_header("access-control-allow-methods", allow_header(&methods))
        .with_header("access-control-allow-headers", ALLOW_HEADERS)
        .with_header("access-control-max-age", "86400")
}

fn error_response<S: Services>(services: &S, err: ApiError, format: ErrorFormat) -> Response {
    if let Some(line) = err.log_line() {
        services.log(&line);
    }
    err.into_response(format)
}

/// Adds the headers every response carries, exposes to browser scripts those of
/// [`EXPOSE_HEADERS`] it has (an answer without any, such as health, names none), and drops the
/// body of a HEAD answer.
fn finish(response: &mut Response, method: Method) {
    response.set_header("access-control-allow-origin", "*");
    let exposed: Vec<&str> = EXPOSE_HEADERS
        .iter()
        .copied()
        .filter(|name| response.header(name).is_some())
        .collect();
    if !exposed.is_empty() {
        response.set_header("access-control-expose-headers", exposed.join(", "));
    }
    response.set_header("x-content-type-options", "nosniff");
    if method == Method::Head {
        response.body = std::borrow::Cow::Borrowed(&[]);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::Config;
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
        }
    }

    #[test]
    fn an_answer_exposes_exactly_the_headers_it_carries() {
        let r = call(Request::new(Method::Get, "/api/v1/search?q=tirads"));
        assert_eq!(
            r.header("access-control-expose-headers"),
            Some("ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset")
        );
        let r = call(Request::new(Method::Get, "/api/v1/health"));
        assert_eq!(r.header("etag"), None);
        assert_eq!(r.header("access-control-expose-headers"), None);
    }

    #[test]
    fn the_locations_shared_limiter_may_refuse_what_the_isolate_allows() {
        let app = App::new(Config::default());
        let ask = || {
            Request::new(Method::Get, "/api/v1/systems/fleischner-2017")
                .with_header("cf-connecting-ip", "203.0.113.9")
        };
        // Bound and over its limit: 429, nothing left, the binding's longest period to wait.
        let over = HostServices {
            shared: Some(false),
            ..HostServices::default()
        };
        let r = block_on(handle(&app, &over, ask()));
        assert_eq!(r.status, 429);
        assert_eq!(r.header("x-ratelimit-remaining"), Some("0"));
        assert_eq!(r.header("retry-after"), Some("60"));
        assert_eq!(
            over.shared_counted.borrow().as_slice(),
            [(Shared::Corpus, "203.0.113.9".to_string())]
        );
        // Bound and within it: answered, counted there too, the isolate's headers.
        let within = HostServices {
            shared: Some(true),
            ..HostServices::default()
        };
        let r = block_on(handle(&app, &within, ask()));
        assert_eq!(r.status, 200);
        assert_eq!(within.shared_counted.borrow().len(), 1);
        assert!(r.header("x-ratelimit-remaining").is_some_and(|n| n != "0"));
        // Not bound: the isolate alone decides; health is never counted.
        let unbound = HostServices::default();
        assert_eq!(block_on(handle(&app, &unbound, ask())).status, 200);
        let within_health = block_on(handle(
            &app,
            &within,
            Request::new(Method::Get, "/api/v1/health"),
        ));
        assert_eq!(within_health.status, 200);
        assert_eq!(within.shared_counted.borrow().len(), 1);
        // What the isolate refuses is not asked of the shared limiter.
        let tight = App::new(Config {
            corpus_rate_limit: 1,
            ..Config::default()
        });
        let counted = HostServices {
            shared: Some(true),
            ..HostServices::default()
        };
        block_on(handle(&tight, &counted, ask()));
        assert_eq!(block_on(handle(&tight, &counted, ask())).status, 429);
        assert_eq!(counted.shared_counted.borrow().len(), 1);
    }

    /// The bindings in wrangler.toml count what the isolate's defaults count: the same limit
    /// over the same period, for each shared limiter.
    #[test]
    fn the_shared_limiters_in_wrangler_toml_match_the_isolate_defaults() {
        let toml = include_str!("../wrangler.toml");
        let defaults = Config::default();
        for (limiter, limit, period) in [
            (
                Shared::Corpus,
                defaults.corpus_rate_limit,
                defaults.corpus_rate_window,
            ),
            (
                Shared::Key,
                defaults.key_rate_limit,
                defaults.key_rate_window,
            ),
        ] {
            let block = toml
                .split("[[ratelimits]]")
                .find(|b| b.contains(&format!("name = \"{}\"", limiter.binding())))
                .unwrap_or_else(|| panic!("no [[ratelimits]] {}", limiter.binding()));
            let simple = format!("simple = {{ limit = {limit}, period = {period} }}");
            assert!(
                block.contains(&simple),
                "{}: expected {simple}",
                limiter.binding()
            );
            assert!(
                period == 10 || period == 60,
                "a binding counts over 10 or 60 seconds"
            );
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
