//! The handlers, one module per feature and one small function per endpoint. Each module's
//! `dispatch` matches its feature's operations exhaustively; the dispatcher (`app`) reaches
//! them through the endpoint table. Handlers read the request and shape the answer; the rules
//! and the SQL live in the feature modules below (`templates`, `webhooks`, `context`, ...).

pub mod context;
pub mod corpus;
pub mod mcp;
pub mod service;
pub mod templates;
pub mod webhooks;
