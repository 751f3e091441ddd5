//! The Cloudflare Workers platform layer (wasm32 only).
//!
//! It converts the runtime's request into the core's `Request`, runs [`app::handle`], and
//! converts the core's `Response` back, each in one call across the boundary (`boundary`). It implements [`Services`] on the Worker's bindings.
//! Nothing here decides anything about the product; each platform quirk is named where it is
//! handled.

use crate::app;
use crate::config::Config;
use crate::db::{DbError, Row, SqlValue, Statement};
use crate::error::ApiError;
use crate::http::Method;
use crate::ratelimit::Shared;
use crate::services::{App, Outgoing, PostResult, QueueMessage, Services};
use crate::webhooks::delivery::Disposition;

mod boundary;
use std::cell::OnceCell;
use std::rc::Rc;
use worker::js_sys;
use worker::wasm_bindgen::{self, prelude::wasm_bindgen, JsCast, JsValue};
use worker::worker_sys::web_sys;
use worker::{
    Env, Headers, MessageBatch, MessageBuilder, MessageExt, QueueRetryOptionsBuilder, SendMessage,
};

/// Services backed by the Worker's environment.
struct WorkerServices {
    env: Env,
}

impl Services for WorkerServices {
    fn now_ms(&self) -> u64 {
        // `SystemTime::now()` panics on wasm32; the JS clock is the platform's. `Date.now()`
        // makes no `Date` object, unlike `worker::Date::now()`.
        js_sys::Date::now() as u64
    }

    fn log(&self, line: &str) {
        worker::console_log!("{}", line);
    }

    async fn query(&self, statement: Statement) -> Result<Vec<Row>, DbError> {
        let db = self.db()?;
        let result = prepare(&db, &statement)?.all().await.map_err(classify)?;
        if let Some(error) = result.error() {
            return Err(classify(worker::Error::RustError(error)));
        }
        result.results::<Row>().map_err(classify)
    }

    async fn batch(&self, statements: Vec<Statement>) -> Result<(), DbError> {
        let db = self.db()?;
        let prepared = statements
            .iter()
            .map(|s| prepare(&db, s))
            .collect::<Result<Vec<_>, _>>()?;
        // D1 runs a batch as one transaction: a failing statement rolls back the others.
        let results = db.batch(prepared).await.map_err(classify)?;
        match results.iter().find_map(|r| r.error()) {
            Some(error) => Err(classify(worker::Error::RustError(error))),
            None => Ok(()),
        }
    }

    fn random_hex(&self, bytes: usize) -> Result<String, ApiError> {
        // worker 0.8 has no wrapper for crypto.getRandomValues; call it on the global scope.
        let buffer = js_sys::Uint8Array::new_with_length(bytes as u32);
        let crypto = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("crypto"))
            .map_err(|_| ApiError::internal("no crypto in the global scope"))?;
        let get_random_values: js_sys::Function =
            js_sys::Reflect::get(&crypto, &JsValue::from_str("getRandomValues"))
                .ok()
                .and_then(|f| f.dyn_into().ok())
                .ok_or_else(|| ApiError::internal("no crypto.getRandomValues"))?;
        get_random_values
            .call1(&crypto, &buffer)
            .map_err(|_| ApiError::internal("crypto.getRandomValues failed"))?;
        Ok(hex::encode(buffer.to_vec()))
    }

    async fn enqueue(&self, messages: Vec<QueueMessage>) -> Result<(), String> {
        let queue = self
            .env
            .queue(DELIVERIES)
            .map_err(|e| format!("queue binding: {e}"))?;
        // sendBatch takes at most 100 messages.
        for chunk in messages.chunks(100) {
            // Sent as JSON text: serde-wasm-bindgen would turn a JSON object into a JS `Map`.
            let batch: Vec<SendMessage<String>> = chunk
                .iter()
                .map(|m| {
                    MessageBuilder::new(m.body.to_string())
                        .delay_seconds(m.delay_secs)
                        .build()
                })
                .collect();
            queue
                .send_batch(batch)
                .await
                .map_err(|e| format!("queue send: {e}"))?;
        }
        Ok(())
    }

    async fn post(&self, request: Outgoing) -> PostResult {
        match post(request).await {
            Ok(result) => result,
            Err(err) => PostResult::Failed(network_error(&err)),
        }
    }

    async fn shared_limit(&self, limiter: Shared, key: &str) -> Option<bool> {
        // Whether the binding exists is asked once per isolate: the bindings of a deployed
        // worker do not change, and where it is missing (the benchmark's plain workerd) a
        // request costs no failed lookup.
        thread_local! {
            static BOUND: [std::cell::Cell<Option<bool>>; 2] = const {
                [std::cell::Cell::new(None), std::cell::Cell::new(None)]
            };
        }
        let slot = Shared::ALL.iter().position(|s| *s == limiter)?;
        if BOUND.with(|b| b[slot].get()) == Some(false) {
            return None;
        }
        let binding = self.env.rate_limiter(limiter.binding()).ok();
        BOUND.with(|b| b[slot].set(Some(binding.is_some())));
        match binding?.limit(key.to_string()).await {
            Ok(outcome) => Some(outcome.success),
            Err(e) => {
                worker::console_log!("rate limiter {}: {e}", limiter.binding());
                None
            }
        }
    }

    async fn corpus_pack(&self, path: &str) -> Result<Vec<u8>, String> {
        // The ASSETS binding reaches the worker's static assets directly (any host name).
        let assets = self
            .env
            .assets("ASSETS")
            .map_err(|e| format!("ASSETS binding: {e}"))?;
        let mut response = assets
            .fetch(format!("https://assets.local/{path}"), None)
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        if response.status_code() != 200 {
            return Err(format!("{path}: status {}", response.status_code()));
        }
        response.bytes().await.map_err(|e| format!("{path}: {e}"))
    }
}

/// One outgoing POST: redirects are not followed (the 3xx is the answer), and the request is
/// aborted when `timeout_ms` passes first.
async fn post(request: Outgoing) -> worker::Result<PostResult> {
    use std::future::Future;
    use std::task::Poll;
    let headers = Headers::new();
    for (name, value) in &request.headers {
        headers.set(name, value)?;
    }
    let mut init = worker::RequestInit::new();
    init.with_method(worker::Method::Post)
        .with_headers(headers)
        .with_redirect(worker::RequestRedirect::Manual)
        .with_body(Some(
            js_sys::Uint8Array::from(request.body.as_slice()).into(),
        ));
    let outgoing = worker::Request::new_with_init(&request.url, &init)?;
    let controller = worker::AbortController::default();
    let signal = controller.signal();
    let fetch = worker::Fetch::Request(outgoing);
    let mut fetch = std::pin::pin!(fetch.send_with_signal(&signal));
    let mut timer = std::pin::pin!(worker::Delay::from(std::time::Duration::from_millis(
        request.timeout_ms
    )));
    let first = std::future::poll_fn(|cx| {
        if let Poll::Ready(result) = fetch.as_mut().poll(cx) {
            return Poll::Ready(Some(result));
        }
        if timer.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await;
    match first {
        Some(Ok(response)) => Ok(PostResult::Status(response.status_code())),
        Some(Err(err)) => Ok(PostResult::Failed(network_error(&err))),
        None => {
            controller.abort();
            Ok(PostResult::TimedOut)
        }
    }
}

/// What a subscriber's owner may see of a failed request: the runtime's message, first line,
/// bounded.
fn network_error(err: &worker::Error) -> String {
    let text = err.to_string();
    let line = text.lines().next().unwrap_or("network error").trim();
    format!(
        "network error: {}",
        line.chars().take(200).collect::<String>()
    )
}

impl WorkerServices {
    fn db(&self) -> Result<worker::D1Database, DbError> {
        self.env
            .d1(DB)
            .map_err(|e| DbError::Other(format!("D1 binding: {e}")))
    }
}

/// Binds a statement's parameters for D1.
fn prepare(
    db: &worker::D1Database,
    statement: &Statement,
) -> Result<worker::D1PreparedStatement, DbError> {
    let params: Vec<JsValue> = statement
        .params
        .iter()
        .map(|p| match p {
            SqlValue::Null => JsValue::NULL,
            SqlValue::Int(n) => JsValue::from_f64(*n as f64),
            SqlValue::Text(t) => JsValue::from_str(t),
        })
        .collect();
    db.prepare(&statement.sql).bind(&params).map_err(classify)
}

/// D1 reports a unique violation only in the error's text (and `all()` uses a different
/// variant than `run()`), so the text decides. `Display` of a D1 error is a debug dump: it goes
/// to the log through `DbError::Other`, never to a client.
fn classify(err: worker::Error) -> DbError {
    let text = err.to_string();
    if text.contains("UNIQUE constraint failed") || text.contains("PRIMARY KEY constraint failed") {
        DbError::Unique
    } else {
        DbError::Other(text)
    }
}

/// The D1 binding of templates, keys and webhooks (wrangler.toml).
const DB: &str = "DB";
/// The queue binding of webhook deliveries (wrangler.toml).
const DELIVERIES: &str = "DELIVERIES";
/// The name of the deliveries' dead-letter queue (wrangler.toml), which this worker consumes.
const DEAD_LETTERS: &str = "radref-deliveries-dlq";

thread_local! {
    /// The application state of this isolate, built on its first request and kept, so the
    /// in-memory rate-limit windows persist between requests. (wasm32 has one thread.)
    static APP: OnceCell<Rc<App>> = const { OnceCell::new() };
}

fn config(env: &Env) -> Config {
    Config::from_vars(|name| env.var(name).ok().map(|v| v.to_string()))
}

/// The worker's handlers, exported as static methods of one class so that `entry.js` (the
/// module wrangler runs) can export them as a plain object.
///
/// `#[event]` handlers are reached through worker-build's entrypoint: a `WorkerEntrypoint`
/// class behind a `Proxy` that makes an instance, a proxy of it and a proxy of the method for
/// every request. Measured in plain workerd (README, Performance), that cost about an eighth
/// of the CPU of a health request. Recovery after a panic does not depend on it: the panic
/// traps, the wasm-bindgen glue around each export (built with worker-build's reset and
/// abort-handler options) marks the instance terminated and runs the `worker` crate's abort
/// hook, which schedules a restart, and the next call starts a fresh instance.
#[wasm_bindgen]
pub struct Handlers;

#[wasm_bindgen]
impl Handlers {
    /// The fetch handler.
    ///
    /// `#[event(fetch)]` would hand every request to the futures executor and answer with a
    /// `Promise`: a JS promise, two closures and a microtask per request, although the corpus
    /// routes never wait for anything. Here the handler's future is polled once at once; when
    /// it is already done (every route that touches neither D1, the queue nor the network) the
    /// `Response` is returned as it is, and only a future still waiting goes to the executor,
    /// which polls it again with its own waker (the futures of `wasm-bindgen-futures` and
    /// `worker` take the waker of their latest poll, so the first, inert waker is never
    /// needed).
    pub fn fetch(raw: web_sys::Request, env: Env, _ctx: worker::worker_sys::Context) -> JsValue {
        use std::future::Future;
        use std::task::{Context as TaskContext, Poll, Waker};
        console_error_panic_hook::set_once();
        let mut future = Box::pin(serve(raw, env));
        match future
            .as_mut()
            .poll(&mut TaskContext::from_waker(Waker::noop()))
        {
            Poll::Ready(response) => response.into(),
            Poll::Pending => worker::wasm_bindgen_futures::future_to_promise(async move {
                Ok(JsValue::from(future.await))
            })
            .into(),
        }
    }

    /// The queue consumer (see [`queue`]).
    pub fn queue(
        batch: worker::worker_sys::MessageBatch,
        env: Env,
        _ctx: worker::worker_sys::Context,
    ) -> js_sys::Promise {
        worker::wasm_bindgen_futures::future_to_promise(async move {
            queue(MessageBatch::from(batch), env).await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The Cron Triggers (see [`scheduled`]).
    pub fn scheduled(
        event: worker::worker_sys::ScheduledEvent,
        env: Env,
        _ctx: worker::worker_sys::ScheduleContext,
    ) -> js_sys::Promise {
        worker::wasm_bindgen_futures::future_to_promise(async move {
            scheduled(worker::ScheduledEvent::from(event), env).await;
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// In the test environment only (`config::TEST_ENVIRONMENT`): a request here panics, which
/// aborts the wasm instance, so `tests/restart/recovery.py` can show that the next request is
/// answered by a fresh one. Not an endpoint: it is not in the table and never answered
/// elsewhere.
const TEST_PANIC: &str = "/__test/panic";

/// One request through the core; a response the runtime refuses becomes a plain 500.
async fn serve(raw: web_sys::Request, env: Env) -> web_sys::Response {
    let app = APP.with(|app| app.get_or_init(|| Rc::new(App::new(config(&env)))).clone());
    let services = WorkerServices { env };
    let mut request = boundary::read_head(&raw);
    if app.config.environment == crate::config::TEST_ENVIRONMENT && request.path == TEST_PANIC {
        panic!("a panic the test environment asked for");
    }
    let cap = match request.method {
        Method::Get | Method::Head | Method::Options => 0,
        _ => crate::routes::body_limit(request.method, &request.path),
    };
    if cap > 0 {
        (request.body, request.body_too_large) =
            read_body(raw, request.header("content-length"), cap).await;
    }
    let response = app::handle(&app, &services, request).await;
    match boundary::write_response(&response) {
        Ok(response) => response,
        Err(err) => {
            services.log(&err);
            boundary::internal_error()
        }
    }
}

/// Queue consumer of webhook deliveries and of their dead-letter queue.
///
/// Every message is acked or retried explicitly: nothing is left to the runtime's default.
async fn queue(batch: MessageBatch<serde_json::Value>, env: Env) {
    console_error_panic_hook::set_once();
    let app = APP.with(|app| app.get_or_init(|| Rc::new(App::new(config(&env)))).clone());
    let services = WorkerServices { env };
    let dead_letters = batch.queue() == DEAD_LETTERS;
    // Each message is one attempt to one subscriber; a slow subscriber (up to the 5-second
    // limit) must not hold up the others of the batch, so they run concurrently.
    let attempts = batch.raw_iter().map(|raw| {
        let (app, services) = (&app, &services);
        async move {
            let body: serde_json::Value = raw
                .body()
                .as_string()
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or(serde_json::Value::Null);
            let disposition = if dead_letters {
                crate::webhooks::recovery::revive(services, &body).await
            } else {
                crate::webhooks::delivery::process(&app.config, services, &body).await
            };
            match disposition {
                Disposition::Ack => raw.ack(),
                Disposition::Retry(delay) => raw.retry_with_options(
                    &QueueRetryOptionsBuilder::new()
                        .with_delay_seconds(delay)
                        .build(),
                ),
            }
        }
    });
    futures_util::future::join_all(attempts).await;
}

/// The Cron Triggers of `wrangler.toml`: every one re-queues stranded deliveries; the daily
/// one also removes finished deliveries past the retention period.
async fn scheduled(event: worker::ScheduledEvent, env: Env) {
    use crate::webhooks::{recovery, retention};
    console_error_panic_hook::set_once();
    let app = APP.with(|app| app.get_or_init(|| Rc::new(App::new(config(&env)))).clone());
    let services = WorkerServices { env };
    match recovery::sweep(&services).await {
        Ok(0) => {}
        Ok(queued) => services.log(&format!(
            "recovery sweep ({}): queued {queued} stranded deliveries again",
            event.cron()
        )),
        Err(err) => services.log(&format!(
            "recovery sweep failed, the next one will retry: {err:?}"
        )),
    }
    if event.cron() != retention::CRON {
        return;
    }
    match retention::sweep(&app.config, &services).await {
        Ok(swept) => services.log(&format!(
            "retention sweep ({}; {} days): removed {} attempts, {} deliveries, {} events",
            event.cron(),
            app.config.retention_days,
            swept.attempts,
            swept.deliveries,
            swept.events
        )),
        Err(err) => services.log(&format!(
            "retention sweep failed, the next one will continue: {err:?}"
        )),
    }
}

/// Reads at most `cap` bytes of body: none when the endpoint reads none (or there is no
/// endpoint), none when `Content-Length` already says more, and no further than the cap when
/// the length is not declared (a chunked body). Returns the body and whether it passed the cap.
/// `Request::bytes` would buffer any size before the core could refuse it. A body whose declared
/// length is within the cap (the runtime delivers exactly that many bytes) is read in one call
/// (`arrayBuffer()`): reading it chunk by chunk through a stream cost a pasted report's
/// grounding several percent of its time in promises and wrappers.
async fn read_body(
    raw: web_sys::Request,
    content_length: Option<&str>,
    cap: usize,
) -> (Vec<u8>, bool) {
    use futures_util::StreamExt;
    if cap == 0 {
        return (Vec::new(), false);
    }
    let declared = content_length.and_then(|value| value.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > cap as u64) {
        return (Vec::new(), true);
    }
    if declared.is_some() {
        let Ok(promise) = raw.array_buffer() else {
            return (Vec::new(), false);
        };
        let Ok(buffer) = worker::wasm_bindgen_futures::JsFuture::from(promise).await else {
            return (Vec::new(), false);
        };
        let body = js_sys::Uint8Array::new(&buffer).to_vec();
        // The declared length bounds what the runtime delivers; a body over the cap all the
        // same is refused like any other.
        let over = body.len() > cap;
        return (if over { Vec::new() } else { body }, over);
    }
    // Only a chunked body pays for worker's request wrapper and its stream.
    let mut req = worker::Request::from(raw);
    // No body at all is an error here, and an empty body.
    let Ok(mut stream) = req.stream() else {
        return (Vec::new(), false);
    };
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            break;
        };
        if body.len() + chunk.len() > cap {
            return (Vec::new(), true);
        }
        body.extend_from_slice(&chunk);
    }
    (body, false)
}
