//! radref: a reference service for radiology classification systems.
//!
//! The crate is a pure core — routing, errors, rendering, the corpus — that knows nothing of
//! the Cloudflare runtime, plus a thin platform layer ([`platform`], wasm32 only) that adapts
//! Worker requests, bindings and events to it. [`app::handle`] is the whole service as a
//! function from a request to a response, which host tests call directly.
//!
//! The content served is reference material, not a medical device; the reporting radiologist
//! remains responsible for every report.

pub mod app;
pub mod auth;
pub mod build_info;
pub mod config;
pub mod context;
pub mod corpus;
pub mod corpus_api;
pub mod db;
pub mod error;
#[cfg(not(target_arch = "wasm32"))]
pub mod host;
pub mod html;
pub mod http;
pub mod mcp;
pub mod openapi;
pub mod ratelimit;
pub mod router;
pub mod search;
pub mod templates;
pub mod webhooks;

#[cfg(target_arch = "wasm32")]
mod platform;
