//! `POST /mcp`: the MCP tool endpoint. The protocol and its tools live in `mcp`.

use crate::call::Call;
use crate::error::ApiError;
use crate::http::Response;
use crate::routes::McpOp;
use crate::services::Services;

/// Runs the MCP operation.
pub fn dispatch<S: Services>(op: McpOp, call: &Call<'_, S>) -> Result<Response, ApiError> {
    match op {
        McpOp::PostMcp => crate::mcp::handle(call.request, |units| call.charge(units)),
    }
}
