//! The corpus as MCP tools: JSON-RPC 2.0 over Streamable HTTP at `POST /mcp`, no key.
//!
//! The server is stateless: it issues no session id, answers every request with a single JSON
//! response (never an event stream), accepts notifications with 202, and answers `GET /mcp` with
//! 405 as the transport allows for servers that offer no server-initiated stream. The tools are
//! rows of the endpoint table (`routes`): each is an operation an HTTP route also serves, its
//! arguments declared once (`schema`) and read by the same readers (`args`), so both doors
//! give the same answers and the same refusals.

use crate::args::{self, Door};
use crate::context;
use crate::corpus::compiled;
use crate::error::ApiError;
use crate::evaluation;
use crate::filter::SystemFilter;
use crate::http::{json_bytes, Request, Response, JSON};
use crate::input::Params;
use crate::openapi;
use crate::routes::{self, CorpusOp, Op};
use crate::schema;
use crate::search;
use crate::versions;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

/// Protocol versions this server speaks, newest first.
pub use crate::routes::MCP_PROTOCOL_VERSIONS as PROTOCOL_VERSIONS;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// What the tool calls of a message (or batch) cost in the per-client rate limit: grounding
/// weighs as its text does (`context::cost`), any other tool call one; other methods nothing.
fn cost(messages: &[&Value]) -> u32 {
    messages
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| match m["params"]["name"].as_str() {
            Some("radref_ground") => {
                crate::context::cost(m["params"]["arguments"]["text"].as_str().unwrap_or(""))
            }
            _ => 1,
        })
        .fold(0u32, u32::saturating_add)
}

/// Handles one HTTP POST to `/mcp`. `charge` spends the message's cost beyond the one unit
/// the request already spent, and refuses (429) when that much budget is not left.
pub fn handle(
    request: &Request,
    charge: impl FnOnce(u32) -> Result<(), ApiError>,
) -> Result<Response, ApiError> {
    if let Some(version) = request.header("mcp-protocol-version") {
        if !PROTOCOL_VERSIONS.contains(&version.trim()) {
            let message = format!(
                "unsupported MCP-Protocol-Version '{}'; supported: {}",
                version.trim(),
                PROTOCOL_VERSIONS.join(", ")
            );
            return Ok(http_error(400, None, INVALID_REQUEST, &message));
        }
    }
    if !request.is_json() {
        return Ok(http_error(
            415,
            None,
            INVALID_REQUEST,
            "send JSON-RPC messages with 'Content-Type: application/json'",
        ));
    }
    let message: Value = match serde_json::from_slice(&request.body) {
        Ok(v) => v,
        Err(e) => {
            let text = format!("parse error: {e}");
            return Ok(http_error(400, None, PARSE_ERROR, &text));
        }
    };
    let messages: Vec<&Value> = match &message {
        Value::Array(batch) if batch.is_empty() => {
            return Ok(http_error(400, None, INVALID_REQUEST, "empty batch"))
        }
        Value::Array(batch) => batch.iter().collect(),
        single => vec![single],
    };
    // Nothing runs until the whole message is paid for.
    charge(cost(&messages).saturating_sub(1))?;
    // A malformed message is refused as a whole (HTTP 400), so a client never mistakes it
    // for an answered request.
    let mut replies: Vec<Vec<u8>> = Vec::new();
    for m in messages {
        match answer(m) {
            Ok(Some(reply)) => replies.push(reply),
            Ok(None) => {}
            Err(invalid) => return Ok(Response::json(400, &invalid)),
        }
    }
    Ok(match (message.is_array(), replies.pop()) {
        // Only notifications or responses: accepted, nothing to say.
        (_, None) => Response::empty(202),
        (false, Some(reply)) => Response::bytes(200, JSON, reply),
        (true, Some(last)) => {
            replies.push(last);
            let mut body =
                Vec::with_capacity(replies.iter().map(|r| r.len() + 1).sum::<usize>() + 1);
            body.push(b'[');
            for (k, reply) in replies.iter().enumerate() {
                if k > 0 {
                    body.push(b',');
                }
                body.extend_from_slice(reply);
            }
            body.push(b']');
            Response::bytes(200, JSON, body)
        }
    })
}

fn http_error(status: u16, id: Option<Value>, code: i64, message: &str) -> Response {
    Response::json(status, &error(id.unwrap_or(Value::Null), code, message))
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn result(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// A reply already written as JSON. A tool's answer is written once, straight from its typed
/// value, and carried into the reply as it is: a grounding of a long report is hundreds of
/// kilobytes, and building it as a JSON tree, then writing it for the text part and again for
/// the structured part, cost more than a fifth of the call.
type Reply = Box<RawValue>;

/// Writes a value as a [`Reply`]. Our own plain data types always serialise.
fn written(value: &impl Serialize) -> Reply {
    serde_json::value::to_raw_value(value)
        .unwrap_or_else(|_| RawValue::from_string("{}".to_string()).expect("valid JSON"))
}

/// The JSON-RPC result of a tool call whose result is already written, in one buffer of its
/// size.
fn tool_result(id: &Value, result: &[u8]) -> Vec<u8> {
    let id = json_bytes(id, 16);
    let head: &[&[u8]] = &[b"{\"jsonrpc\":\"2.0\",\"id\":", &id, b",\"result\":"];
    let mut out =
        Vec::with_capacity(head.iter().map(|h| h.len()).sum::<usize>() + result.len() + 1);
    for h in head {
        out.extend_from_slice(h);
    }
    out.extend_from_slice(result);
    out.push(b'}');
    out
}

/// The reply to one message, written: `Ok(None)` for notifications and client responses,
/// `Err` with a JSON-RPC error for a malformed message.
fn answer(message: &Value) -> Result<Option<Vec<u8>>, Value> {
    let Some(obj) = message.as_object() else {
        return Err(error(
            Value::Null,
            INVALID_REQUEST,
            "a message must be a JSON object",
        ));
    };
    let id = obj.get("id").cloned();
    if let Some(id) = &id {
        if !(id.is_string() || id.is_number()) {
            return Err(error(
                Value::Null,
                INVALID_REQUEST,
                "id must be a string or a number",
            ));
        }
    }
    let invalid = |message: &str| {
        Err(error(
            id.clone().unwrap_or(Value::Null),
            INVALID_REQUEST,
            message,
        ))
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("jsonrpc must be \"2.0\"");
    }
    if obj.get("params").is_some_and(|p| !p.is_object()) {
        return invalid("params must be an object");
    }
    let method = match obj.get("method") {
        Some(Value::String(m)) => m.as_str(),
        Some(_) => return invalid("method must be a string"),
        // A response from the client (result or error) to nothing we asked: accept it.
        None if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) => {
            return Ok(None)
        }
        None => return invalid("method is required"),
    };
    let Some(id) = id else {
        // Notifications (initialized, cancelled, ...) need no answer.
        return Ok(None);
    };
    let params = obj
        .get("params")
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    let small = 256;
    Ok(Some(match method {
        "initialize" => json_bytes(&result(id, initialize(&params)), small),
        "ping" => json_bytes(&result(id, json!({})), small),
        "tools/list" => json_bytes(&result(id, json!({ "tools": tools() })), 64 * 1024),
        "tools/call" => match call(&params) {
            Ok(reply) => tool_result(&id, &reply),
            Err(message) => json_bytes(&error(id, INVALID_PARAMS, &message), small),
        },
        other => json_bytes(
            &error(id, METHOD_NOT_FOUND, &format!("method '{other}' not found")),
            small,
        ),
    }))
}

fn initialize(params: &Value) -> Value {
    let requested = params["protocolVersion"].as_str().unwrap_or_default();
    let version = if PROTOCOL_VERSIONS.contains(&requested) {
        requested
    } else {
        PROTOCOL_VERSIONS[0]
    };
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": {
            "name": "radref",
            "title": "radref: radiology classification reference",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": "Read-only tools over radref's corpus of radiology classification systems \
            (TI-RADS, LI-RADS, Lung-RADS, Fleischner, Bosniak, PI-RADS, O-RADS, incidental-findings \
            papers, appropriateness criteria...). Every clinical line carries a citation, a locator, \
            a consensus indication and a draft/verified status; cite them. Use radref_ground with a \
            finding to get the governing systems (verified=false includes draft lines, flagged), \
            and radref_evaluate to run a system's rules on the finding's inputs. \
            Reference material only: not a medical device; the reporting radiologist remains responsible.",
    })
}

fn annotations(title: &str) -> Value {
    json!({
        "title": title,
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false,
    })
}

/// An output schema: the listed fields are promised; records may carry more.
fn output(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

/// What a tool answers: the schema of its route's answer, from the OpenAPI document's
/// components, with the markdown block where the tool adds one. Search and the systems list
/// answer the fields their routes wrap in a `{data, meta}` envelope: their items are the same.
fn output_schema(op: Op) -> Value {
    let answer = |name: &str| openapi::answer_schema(name);
    match op {
        Op::Corpus(CorpusOp::SearchCorpus) => output(
            json!({ "query": { "type": "string" },
                "hits": { "type": "array", "items": answer("SearchHit") } }),
            &["query", "hits"],
        ),
        Op::Corpus(CorpusOp::ListSystems) => output(
            json!({ "total": { "type": "integer" }, "filters": { "type": "object" },
                "systems": { "type": "array", "items": answer("SystemSummary") } }),
            &["total", "systems"],
        ),
        Op::Corpus(CorpusOp::GetSystem) => answer("SystemDetail"),
        Op::Context(_) => with_markdown(answer("ContextResponse")),
        Op::Corpus(CorpusOp::EvaluateSystem | CorpusOp::EvaluateSystemPost) => {
            with_markdown(answer("Evaluation"))
        }
        Op::Corpus(CorpusOp::GetCoverage) => answer("Coverage"),
        Op::Corpus(CorpusOp::DiffSystems) => with_markdown(answer("Diff")),
        Op::Corpus(CorpusOp::RescoreSystems) => with_markdown(answer("Rescore")),
        _ => output(json!({}), &[]),
    }
}

/// An answer with the markdown block the tool adds.
fn with_markdown(mut schema: Value) -> Value {
    schema["properties"]["markdown"] = json!({ "type": "string" });
    if let Some(required) = schema["required"].as_array_mut() {
        required.push(json!("markdown"));
    }
    schema
}

/// The tool definitions: one per row of the endpoint table that has a tool, its input schema
/// the operation's declared arguments.
pub fn tools() -> Vec<Value> {
    routes::tools()
        .map(|(e, t)| {
            let mut output = output_schema(e.op);
            // Every tool's result carries the not-a-medical-device notice.
            if let Some(props) = output["properties"].as_object_mut() {
                props.entry("notice").or_insert(json!({ "type": "string" }));
            }
            json!({
                "name": t.name,
                "title": t.title,
                "description": t.description,
                "inputSchema": schema::tool_input(e.op),
                "outputSchema": output,
                "annotations": annotations(t.label),
            })
        })
        .collect()
}

/// Runs a tool, its result written. Unknown tools are a protocol error; bad arguments are a
/// tool error (`isError: true`) the model can read and correct.
fn call(params: &Value) -> Result<Vec<u8>, String> {
    let name = params["name"]
        .as_str()
        .ok_or_else(|| "tools/call needs params.name".to_string())?;
    let args: Map<String, Value> = match &params["arguments"] {
        Value::Null => Map::new(),
        Value::Object(m) => m.clone(),
        _ => return Err("params.arguments must be an object".into()),
    };
    let Some(endpoint) = routes::tool(name) else {
        return Err(format!("unknown tool '{name}'"));
    };
    Ok(match run(endpoint.op, &args) {
        Ok((structured, markdown)) => {
            // The text part is what a model reads: the markdown block where the tool writes
            // one, otherwise the structured answer as JSON text.
            let text = markdown.as_deref().unwrap_or(structured.get());
            let capacity = structured.get().len() + text.len() * 9 / 8 + 256;
            json_bytes(
                &ToolReply {
                    content: vec![Text::of(text)],
                    structured_content: &structured,
                    is_error: false,
                },
                capacity,
            )
        }
        Err(e) => json_bytes(
            &json!({
                "content": [{ "type": "text", "text": e.public_message() }],
                "isError": true,
            }),
            256,
        ),
    })
}

/// A tool's structured result, written, and its markdown block when it has one.
type ToolResult = Result<(Reply, Option<String>), ApiError>;

/// A text part of a tool's result.
#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

impl Text<'_> {
    fn of(text: &str) -> Text<'_> {
        Text { kind: "text", text }
    }
}

/// A tool's result: its structured answer and one text part (the markdown block, or the
/// structured answer as JSON text for a tool without one).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolReply<'a> {
    content: Vec<Text<'a>>,
    structured_content: &'a RawValue,
    is_error: bool,
}

/// Runs the operation of a tool on its arguments, read by the readers the HTTP routes use.
fn run(op: Op, args: &Map<String, Value>) -> ToolResult {
    args::reject_unknown(args, &schema::tool_names(op))?;
    match op {
        Op::Corpus(CorpusOp::SearchCorpus) => {
            let query = args::search(args, Door::Tool)?;
            let hits = search::search(&query.text, query.limit);
            Ok((
                written(
                    &json!({ "query": query.text, "hits": hits, "notice": crate::corpus::source::NOTICE }),
                ),
                None,
            ))
        }
        Op::Corpus(CorpusOp::GetSystem) => {
            let slug = required(args, op, "id")?;
            let index = args::system(op, &slug, Door::Tool)?;
            Ok((written(compiled::detail_value(index)), None))
        }
        Op::Context(_) => {
            let query = args::ground(args, &schema::tool_names(op))?;
            let answer = context::ground(&crate::knowledge::KNOWLEDGE, &query);
            Ok(with_markdown_block(&answer, context::markdown(&answer)))
        }
        Op::Corpus(CorpusOp::EvaluateSystem | CorpusOp::EvaluateSystemPost) => {
            let slug = required(args, op, "id")?;
            let logic = args::logic(op, &slug, Door::Tool)?;
            let mut body = args.clone();
            body.remove("slug");
            let ask = evaluation::from_object(logic, &body, &schema::body_names(op), None)?;
            let eval = evaluation::run(logic, &ask)?;
            Ok(with_markdown_block(
                &evaluation::answer(logic, &ask, &eval),
                evaluation::to_markdown(logic, &ask, &eval),
            ))
        }
        Op::Corpus(CorpusOp::DiffSystems | CorpusOp::RescoreSystems) => {
            let (slug, other) = (required(args, op, "id")?, required(args, op, "other")?);
            let pair = args::versions(op, &slug, &other, Door::Tool)?;
            Ok(if op == Op::Corpus(CorpusOp::DiffSystems) {
                let answer = versions::diff(&pair);
                with_markdown_block(&answer, versions::diff_markdown(&answer))
            } else {
                let answer = versions::rescore(&pair, &versions::input_sets(args.get("inputs"))?)?;
                with_markdown_block(&answer, versions::rescore_markdown(&answer))
            })
        }
        Op::Corpus(CorpusOp::ListSystems) => {
            let filter = SystemFilter::read(args)?;
            let systems: Vec<Value> = filter
                .select()
                .iter()
                .filter_map(|s| serde_json::from_str(s.summary_json).ok())
                .collect();
            Ok((
                written(
                    &json!({ "total": systems.len(), "filters": filter.to_json(), "systems": systems, "notice": crate::corpus::source::NOTICE }),
                ),
                None,
            ))
        }
        Op::Corpus(CorpusOp::GetCoverage) => {
            let bytes = compiled::file("coverage.json")
                .ok_or_else(|| ApiError::internal("missing compiled coverage"))?;
            let value: Value = serde_json::from_slice(bytes)
                .map_err(|e| ApiError::internal(format!("coverage: {e}")))?;
            Ok((written(&value), None))
        }
        other => Err(ApiError::internal(format!("{other:?} has no tool"))),
    }
}

/// A tool's structured answer with its markdown block, which is also the result's text part.
fn with_markdown_block(answer: &impl Serialize, markdown: String) -> (Reply, Option<String>) {
    #[derive(Serialize)]
    struct WithMarkdown<'a, T> {
        #[serde(flatten)]
        answer: &'a T,
        markdown: &'a str,
    }
    let value = written(&WithMarkdown {
        answer,
        markdown: &markdown,
    });
    (value, Some(markdown))
}

/// A required argument, by the name its tool gives the operation's `http_name` argument.
fn required(args: &Map<String, Value>, op: Op, http_name: &str) -> Result<String, ApiError> {
    let name = schema::arguments(op)
        .iter()
        .find(|a| a.name == http_name)
        .and_then(|a| a.tool)
        .unwrap_or(http_name);
    Params::get(args, name)?
        .ok_or_else(|| ApiError::bad_param(name, format!("'{name}' is required")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;

    fn post(body: &str) -> Response {
        handle(
            &Request::new(Method::Post, "/mcp")
                .with_header("content-type", "application/json")
                .with_body(body.as_bytes().to_vec()),
            |_| Ok(()),
        )
        .unwrap()
    }

    fn body(r: &Response) -> Value {
        serde_json::from_slice(&r.body).unwrap()
    }

    #[test]
    fn initialize_negotiates_the_version() {
        let r = post(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        assert_eq!(r.status, 200);
        let b = body(&r);
        assert_eq!(b["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(b["result"]["serverInfo"]["name"], "radref");
        let r = post(
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#,
        );
        assert_eq!(body(&r)["result"]["protocolVersion"], PROTOCOL_VERSIONS[0]);
    }

    #[test]
    fn notifications_are_accepted_without_a_body() {
        let r = post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(r.status, 202);
        assert!(r.body.is_empty());
    }

    #[test]
    fn lists_eight_read_only_tools_with_schemas() {
        let b = body(&post(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#));
        let tools = b["result"]["tools"].as_array().unwrap();
        let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        // In the order of the endpoint table's rows.
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "radref_coverage",
                "radref_diff",
                "radref_evaluate",
                "radref_get_system",
                "radref_ground",
                "radref_list_systems",
                "radref_rescore",
                "radref_search",
            ]
        );
        for t in tools {
            assert_eq!(t["inputSchema"]["type"], "object");
            assert_eq!(t["outputSchema"]["type"], "object");
            assert_eq!(t["annotations"]["readOnlyHint"], true);
        }
    }

    #[test]
    fn tools_answer_with_structured_content_and_text() {
        let b = body(&post(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"radref_search","arguments":{"query":"bosniack"}}}"#,
        ));
        let r = &b["result"];
        assert_eq!(r["isError"], false);
        assert_eq!(r["structuredContent"]["hits"][0]["slug"], "bosniak-v2019");
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, r["structuredContent"]);
        let b = body(&post(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"radref_ground","arguments":{"text":"incidental 6 mm solid lung nodule on CT","verified":false,"limit":2}}}"#,
        ));
        assert_eq!(
            b["result"]["structuredContent"]["systems"][0]["slug"],
            "fleischner-2017"
        );
        // A tool with a markdown block gives it as its one text part, not the JSON again.
        let content = b["result"]["content"].as_array().unwrap();
        assert_eq!(content.len(), 1);
        assert_eq!(
            content[0]["text"],
            b["result"]["structuredContent"]["markdown"]
        );
        assert!(content[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("## radref grounded context"));
    }

    #[test]
    fn evaluate_answers_with_each_unit_and_a_markdown_block() {
        let b = body(&post(
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"radref_evaluate","arguments":{"slug":"acr-ti-rads-2017","inputs":{"composition":"solid","echogenicity":"hypoechoic","shape":"wider_than_tall","margin":"smooth","echogenic_foci":["none_or_large_comet_tail"],"max_diameter_mm":15}}}}"#,
        ));
        let r = &b["result"];
        assert_eq!(r["isError"], false);
        let units = &r["structuredContent"]["units"];
        assert_eq!(units[0]["answer"], "TR4");
        assert_eq!(units[1]["result"], "FNA");
        assert!(r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("**FNA**"));
        let b = body(&post(
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"radref_evaluate","arguments":{"slug":"acr-ti-rads-2017","inputs":{"echogenic_foci":"punctate"}}}}"#,
        ));
        assert_eq!(b["result"]["isError"], true);
        assert!(b["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("send a list"));
    }

    #[test]
    fn bad_arguments_are_tool_errors_and_unknown_tools_protocol_errors() {
        let b = body(&post(
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"radref_get_system","arguments":{"slug":"fleischner-2005"}}}"#,
        ));
        assert_eq!(b["result"]["isError"], true);
        assert!(b["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("fleischner-2017"));
        let b = body(&post(
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"radref_search","arguments":{"query":"x","bogus":1}}}"#,
        ));
        assert_eq!(b["result"]["isError"], true);
        let b = body(&post(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
        ));
        assert_eq!(b["error"]["code"], INVALID_PARAMS);
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        let r = post("{not json");
        assert_eq!(r.status, 400);
        assert_eq!(body(&r)["error"]["code"], PARSE_ERROR);
        assert_eq!(
            body(&post(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#))["error"]["code"],
            INVALID_REQUEST
        );
        assert_eq!(
            body(&post(
                r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#
            ))["error"]["code"],
            METHOD_NOT_FOUND
        );
        assert_eq!(
            body(&post(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#))["result"],
            json!({})
        );
        let batch = body(&post(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
        ));
        assert_eq!(batch.as_array().unwrap().len(), 1);
        let wrong_type = handle(
            &Request::new(Method::Post, "/mcp").with_body(b"{}".to_vec()),
            |_| Ok(()),
        )
        .unwrap();
        assert_eq!(wrong_type.status, 415);
    }
}
