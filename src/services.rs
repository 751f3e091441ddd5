//! The ports: what the platform provides to the core, and the isolate's shared state.
//!
//! Everything below the dispatcher reaches the clock, the log, D1, the deliveries queue,
//! outgoing HTTP and the corpus store only through [`Services`], so host tests drive the whole service with an
//! in-memory or SQLite implementation (`host`) and the wasm build with the Cloudflare bindings
//! (`platform`). This module sits near the bottom of the house: it imports no feature.

use crate::config::Config;
use crate::db::{DbError, Row, Statement};
use crate::error::ApiError;
use crate::ratelimit::{RateLimiter, Shared};

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

    /// Counts a request of `key` on a limiter shared by the isolates of a location: `Some(true)`
    /// within its limit, `Some(false)` over it, `None` where no such limiter is bound (or it
    /// failed to answer, which is logged: a limiter that cannot count lets the request through).
    async fn shared_limit(&self, limiter: Shared, key: &str) -> Option<bool>;

    /// Reads one file of the corpus store (`corpus-store/<hash>/<n>.bin`, a pack of system
    /// bodies that the build placed beside the worker as a static asset). Only a build whose
    /// bodies are in the store asks; an error's text is for the log.
    async fn corpus_pack(&self, path: &str) -> Result<Vec<u8>, String>;
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
    /// Per-client counters of failed key checks.
    pub auth_failures: RateLimiter,
}

impl App {
    /// An application with the given configuration.
    pub fn new(config: Config) -> App {
        let corpus_limiter = RateLimiter::new(config.corpus_rate_limit, config.corpus_rate_window);
        let key_limiter = RateLimiter::new(config.key_rate_limit, config.key_rate_window);
        let auth_failures = RateLimiter::new(config.auth_failure_limit, config.auth_failure_window);
        App {
            config,
            corpus_limiter,
            key_limiter,
            auth_failures,
        }
    }
}
