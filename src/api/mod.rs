//! The handlers, one module per feature and one small function per endpoint. Each module's
//! `dispatch` matches its feature's operations exhaustively; the dispatcher (`app`) reaches
//! them through the endpoint table. Handlers read the request and shape the answer; the rules
//! and the SQL live in the feature modules below (`templates`, `webhooks`, `context`, ...).

use crate::http::Response;

pub mod context;
pub mod corpus;
pub mod mcp;
pub mod service;
pub mod templates;
pub mod webhooks;

/// A markdown block as a response, with its size in approximate tokens (`x-approx-tokens`),
/// as every markdown answer carries it.
fn markdown(md: String) -> Response {
    let tokens = crate::corpus::text::approx_tokens(&md);
    Response::bytes(200, "text/markdown; charset=utf-8", md.into_bytes())
        .with_header("x-approx-tokens", tokens.to_string())
}
