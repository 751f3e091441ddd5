//! HTTP and MCP are two doors over the same operations: a tool's arguments are declared with
//! its route's (`schema`) and read by the same readers (`args`). Here the same bad input goes
//! through both doors of the app function, and the HTTP route's error message must be the
//! tool's error text: the same words, naming the argument as each door calls it.

use crate::app::handle;
use crate::config::Config;
use crate::host::block_on;
use crate::host::sqlite::Sqlite;
use crate::http::{Method, Request, Response};
use crate::routes;
use crate::schema;
use crate::services::App;
use serde_json::{json, Value};

const KEY: &str = "rr_doors001_keyForTheDoorsHostTests000001";

fn app() -> (App, Sqlite) {
    let app = App::new(Config {
        corpus_rate_limit: u32::MAX,
        ..Config::default()
    });
    (app, Sqlite::new().with_key(KEY, "alice", "context"))
}

fn send(request: Request) -> Response {
    let (app, services) = app();
    let request = request
        .with_header("authorization", &format!("Bearer {KEY}"))
        .with_header("cf-connecting-ip", "198.51.100.9");
    block_on(handle(&app, &services, request))
}

fn http_error(method: Method, target: &str, body: Option<&Value>) -> (u16, String) {
    let mut request = Request::new(method, target);
    if let Some(body) = body {
        request = request
            .with_header("content-type", "application/json")
            .with_body(body.to_string().into_bytes());
    }
    let r = send(request);
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    (
        r.status,
        body["error"].as_str().unwrap_or_default().to_string(),
    )
}

/// The text of a tool's error for these arguments (the call must be a tool error).
fn tool_error(name: &str, arguments: Value) -> String {
    let message = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": name, "arguments": arguments } });
    let r = send(
        Request::new(Method::Post, "/mcp")
            .with_header("content-type", "application/json")
            .with_body(message.to_string().into_bytes()),
    );
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(body["result"]["isError"], true, "{name} {body}");
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn search_refuses_the_same_way_through_both_doors() {
    let long = "a".repeat(501);
    for (query, limit, expected) in [
        ("", "3", "'q' is required and must not be empty"),
        ("   ", "3", "'q' is required and must not be empty"),
        (long.as_str(), "3", "'q' is longer than 500 characters"),
        (
            "bosniak",
            "0",
            "'limit' must be an integer from 1 to 50; got '0'",
        ),
        (
            "bosniak",
            "51",
            "'limit' must be an integer from 1 to 50; got '51'",
        ),
    ] {
        let (status, http) = http_error(
            Method::Get,
            &format!("/api/v1/search?q={query}&limit={limit}"),
            None,
        );
        assert_eq!((status, http.as_str()), (400, expected));
        let args = json!({ "query": query, "limit": limit.parse::<i64>().unwrap() });
        // The tool calls the text argument `query`: the same message, under its own name.
        assert_eq!(
            tool_error("radref_search", args),
            http.replace("'q'", "'query'")
        );
    }
}

#[test]
fn grounding_refuses_the_same_way_through_both_doors() {
    let long = "a".repeat(crate::context::MAX_TEXT_CHARS + 1);
    for arguments in [
        json!({ "text": "nodule", "limit": 9 }),
        json!({ "text": "nodule", "limit": 2.5 }),
        json!({ "text": "nodule", "organ": "elbow" }),
        json!({ "text": "nodule", "systems": ["no-such-system"] }),
        json!({ "text": "nodule", "systems": ["fleischner-2017", ""] }),
        json!({ "text": "nodule", "systems": "fleischner-2017" }),
        json!({ "text": "nodule", "verified": "maybe" }),
        json!({ "text": 5 }),
        json!({ "text": long }),
    ] {
        let (status, http) = http_error(Method::Post, "/api/v1/context", Some(&arguments));
        assert_eq!(status, 400, "{arguments}: {http}");
        assert_eq!(
            tool_error("radref_ground", arguments.clone()),
            http,
            "{arguments}"
        );
    }
    // An unknown field: each door lists what it takes (the route also takes `format`).
    let typo = json!({ "txt": "nodule" });
    let (status, http) = http_error(Method::Post, "/api/v1/context", Some(&typo));
    assert_eq!(status, 400);
    assert_eq!(
        http,
        "unknown argument 'txt'; allowed: text, systems, organ, limit, format, verified, detail, max_tokens"
    );
    assert_eq!(
        tool_error("radref_ground", typo),
        "unknown argument 'txt'; allowed: text, systems, organ, limit, verified, detail, max_tokens"
    );
    // A field the tool does not take (it answers both formats) is refused by the tool only.
    let format = json!({ "text": "nodule", "format": "markdown" });
    assert!(tool_error("radref_ground", format).starts_with("unknown argument 'format'"));
}

#[test]
fn a_slug_no_system_has_is_refused_with_the_same_suggestions() {
    let (status, http) = http_error(Method::Get, "/api/v1/systems/fleischner-2005", None);
    assert_eq!(status, 404);
    assert!(http.contains("fleischner-2017"), "{http}");
    assert_eq!(
        tool_error("radref_get_system", json!({ "slug": "fleischner-2005" })),
        http
    );
    let (status, http) = http_error(
        Method::Post,
        "/api/v1/systems/fleischner-2005/evaluate",
        Some(&json!({ "inputs": {} })),
    );
    assert_eq!(status, 404);
    assert_eq!(
        tool_error(
            "radref_evaluate",
            json!({ "slug": "fleischner-2005", "inputs": {} })
        ),
        http
    );
}

#[test]
fn evaluation_and_list_refuse_the_same_way_through_both_doors() {
    let bad_value = json!({ "inputs": { "composition": "gooey" } });
    let (status, http) = http_error(
        Method::Post,
        "/api/v1/systems/acr-ti-rads-2017/evaluate",
        Some(&bad_value),
    );
    assert_eq!(status, 400);
    let mut args = bad_value.clone();
    args["slug"] = json!("acr-ti-rads-2017");
    assert_eq!(tool_error("radref_evaluate", args), http);
    let (status, http) = http_error(Method::Get, "/api/v1/systems?family=lexiconz", None);
    assert_eq!(status, 400);
    assert_eq!(
        tool_error("radref_list_systems", json!({ "family": "lexiconz" })),
        http
    );
}

#[test]
fn every_tool_is_a_row_of_the_endpoint_table_with_its_declared_arguments() {
    let listed: Vec<Value> = crate::mcp::tools();
    assert_eq!(listed.len(), routes::tools().count());
    for (endpoint, tool) in routes::tools() {
        let listed = listed.iter().find(|t| t["name"] == tool.name).unwrap();
        let properties: Vec<&String> = listed["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        let mut declared = schema::tool_names(endpoint.op);
        declared.sort_unstable();
        assert_eq!(properties, declared, "{}", tool.name);
    }
}

#[test]
fn llms_txt_lists_every_tool_with_its_declared_arguments() {
    let r = send(Request::new(Method::Get, "/llms.txt"));
    let text = String::from_utf8(r.body.to_vec()).unwrap();
    assert!(!text.contains("{MCP_TOOLS}"));
    assert!(text.contains("radref_search (query, limit)"), "{text}");
    assert!(
        text.contains("radref_ground (text, systems, organ, limit, verified, detail, max_tokens)")
    );
    assert!(text.contains("radref_coverage."));
}
