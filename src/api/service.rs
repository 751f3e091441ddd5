//! The service's own routes: liveness, the OpenAPI document and the `llms.txt` discovery file.

use crate::cache::cached;
use crate::call::Call;
use crate::error::ApiError;
use crate::http::{Request, Response};
use crate::routes::{ServiceOp, API_VERSION};
use crate::services::{App, Services};

/// Runs a service operation.
pub fn dispatch<S: Services>(op: ServiceOp, call: &Call<'_, S>) -> Result<Response, ApiError> {
    match op {
        ServiceOp::GetHealth => Ok(health(call.app)),
        ServiceOp::GetOpenApi => Ok(openapi(call.request)),
        ServiceOp::GetLlmsTxt => Ok(llms_txt(call.request)),
    }
}

/// The environment in which the health route also reports the isolate's memory, for the HTTP
/// benchmark (`make bench`); never set in production.
pub const BENCH_ENVIRONMENT: &str = "bench";

/// The size of the wasm linear memory in bytes (`None` on the host). It only grows, so the
/// benchmark reads it after its load to show that the isolate's memory stays flat.
fn wasm_memory_bytes() -> Option<usize> {
    #[cfg(target_arch = "wasm32")]
    return Some(core::arch::wasm32::memory_size(0) * 65536);
    #[cfg(not(target_arch = "wasm32"))]
    None
}

/// The body of `GET /api/v1/health` (fields in the order clients have always seen them).
#[derive(serde::Serialize)]
struct Health<'a> {
    api_version: &'static str,
    corpus: HealthCorpus,
    environment: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    memory: Option<HealthMemory>,
    service: &'static str,
    status: &'static str,
    version: &'static str,
}

#[derive(serde::Serialize)]
struct HealthCorpus {
    /// Where the system bodies live: `bundle` (compiled into the worker) or `store` (packs in
    /// the static-asset store, each read by an isolate on the first request that meets a body in it).
    bodies: &'static str,
    clinical_lines: u32,
    hash: &'static str,
    /// The store's packs (0 in a bundle build), and how many of them this isolate has read:
    /// each is read on the first request that meets a body in it.
    packs: usize,
    packs_read: usize,
    systems: u32,
}

#[derive(serde::Serialize)]
struct HealthMemory {
    wasm_bytes: Option<usize>,
}

/// `GET /api/v1/health`: liveness, the build's version and the corpus it carries; in the
/// benchmark environment also the isolate's memory.
fn health(app: &App) -> Response {
    let body = Health {
        api_version: API_VERSION,
        corpus: HealthCorpus {
            bodies: if crate::corpus::compiled::bodies_in_store() {
                "store"
            } else {
                "bundle"
            },
            clinical_lines: crate::corpus::compiled::TOTALS.lines,
            hash: crate::build_info::CORPUS_HASH,
            packs: crate::corpus::compiled::STORE_PACKS.len(),
            packs_read: crate::corpus::compiled::packs_read(),
            systems: crate::corpus::compiled::TOTALS.systems,
        },
        environment: &app.config.environment,
        memory: (app.config.environment == BENCH_ENVIRONMENT).then(|| HealthMemory {
            wasm_bytes: wasm_memory_bytes(),
        }),
        service: "radref",
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
    };
    Response::json(200, &body).with_header("cache-control", "no-store")
}

/// `GET /api/v1/openapi`: the document, serialised once per isolate.
fn openapi(request: &Request) -> Response {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let bytes =
        BYTES.get_or_init(|| serde_json::to_vec(&crate::openapi::document()).unwrap_or_default());
    cached(
        request,
        Response::bytes(200, crate::http::JSON, bytes.as_slice()),
    )
}

/// `GET /llms.txt`: the discovery file for agents (llms.txt convention), with the limits the
/// code enforces filled in, rendered once per isolate.
fn llms_txt(request: &Request) -> Response {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let text = TEXT.get_or_init(render_llms_txt);
    cached(
        request,
        Response::bytes(200, "text/plain; charset=utf-8", text.as_bytes()),
    )
}

/// `docs/llms.txt` with the limits filled in from the constants the code enforces.
fn render_llms_txt() -> String {
    use crate::context;
    let mut text = include_str!("../docs/llms.txt").to_string();
    for (name, value) in [
        (
            "{CONTEXT_QUERY_CHARS}",
            context::MAX_QUERY_CHARS.to_string(),
        ),
        ("{CONTEXT_TEXT_CHARS}", context::MAX_TEXT_CHARS.to_string()),
        (
            "{CONTEXT_BODY_BYTES}",
            crate::routes::body::CONTEXT.to_string(),
        ),
        ("{CONTEXT_MAX_LIMIT}", context::MAX_LIMIT.to_string()),
        (
            "{CONTEXT_DEFAULT_LIMIT}",
            context::DEFAULT_LIMIT.to_string(),
        ),
        ("{MCP_VERSIONS}", crate::mcp::PROTOCOL_VERSIONS.join(", ")),
        ("{MCP_TOOLS}", mcp_tools()),
    ] {
        text = text.replace(name, &value);
    }
    text
}

/// The MCP tools with their arguments, as the endpoint table and the schema declare them.
fn mcp_tools() -> String {
    crate::routes::tools()
        .map(|(endpoint, tool)| {
            let args = crate::schema::tool_names(endpoint.op);
            if args.is_empty() {
                tool.name.to_string()
            } else {
                format!("{} ({})", tool.name, args.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
