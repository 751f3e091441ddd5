//! radref: a reference service for radiology classification systems.
//!
//! The crate is a pure core that knows nothing of the Cloudflare runtime, plus a thin platform
//! layer ([`platform`], wasm32 only) that adapts Worker requests, bindings and events to it,
//! and the worker's allocator (`heap`, wasm32 only).
//! [`app::handle`] is the whole service as a function from a request to a response, which host
//! tests call directly. The house, from the top floor down:
//!
//! - [`app`]: the dispatcher; [`api`]: the handlers, one module per feature; [`mcp`]: the
//!   tools; both read arguments with [`args`], declared once in [`schema`];
//! - [`knowledge`]: the grounding knowledge compiled from `corpus/grounding/`;
//! - the features' rules: [`templates`], [`webhooks`], [`context`], [`filter`],
//!   [`search`], [`evaluation`], [`versions`], [`openapi`], [`html`], [`corpus`];
//! - the shared floor: [`feature`] (an operation's error), [`auth`], [`call`], [`routes`]
//!   (the endpoint table), [`services`] (the ports), [`input`], [`cache`], [`db`], [`error`],
//!   [`http`], [`time`], [`config`], [`ratelimit`].
//!
//! The content served is reference material, not a medical device; the reporting radiologist
//! remains responsible for every report.

pub mod api;
pub mod app;
pub(crate) mod args;
pub mod auth;
pub mod build_info;
pub mod cache;
pub mod call;
pub mod config;
pub mod context;
pub mod corpus;
pub mod db;
pub mod error;
pub mod evaluation;
pub(crate) mod feature;
pub mod fhir;
pub mod filter;
#[cfg(any(target_arch = "wasm32", test))]
mod heap;
#[cfg(not(target_arch = "wasm32"))]
pub mod host;
pub mod html;
pub mod http;
pub mod input;
pub mod knowledge;
pub mod mcp;
pub mod mrrt;
pub mod openapi;
pub mod ratelimit;
pub mod routes;
pub(crate) mod schema;
pub mod search;
pub mod services;
pub mod templates;
pub mod time;
pub mod versions;
pub mod webhooks;

#[cfg(target_arch = "wasm32")]
mod platform;

/// The worker's allocator: the platform's, with a free list per size class up to 8 KiB
/// ([`heap`]).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static HEAP: heap::Cached<std::alloc::System> = heap::Cached::new(std::alloc::System);

#[cfg(test)]
mod tests;
