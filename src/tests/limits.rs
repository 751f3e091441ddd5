//! The limits that protect the service from a single client: failed key checks are counted
//! per address and, past the limit, refused before the key is looked up; a grounding (over
//! HTTP or MCP) spends the per-client budget in proportion to its text.

use crate::app::handle;
use crate::config::Config;
use crate::host::block_on;
use crate::host::sqlite::Sqlite;
use crate::http::{Method, Request, Response};
use crate::services::App;
use serde_json::{json, Value};

const GOOD: &str = "rr_limits01_keyForTheLimitsHostTests00001";
const NO_SCOPE: &str = "rr_limits02_keyWithoutScopeForLimitTests1";
const WRONG: &str = "rr_limits03_aKeyThatWasNeverIssuedAtAll01";

fn services() -> Sqlite {
    Sqlite::new()
        .with_key(GOOD, "alice", "context templates")
        .with_key(NO_SCOPE, "bob", "nothing")
}

fn get(app: &App, s: &Sqlite, path: &str, ip: &str, key: Option<&str>) -> Response {
    let mut request = Request::new(Method::Get, path).with_header("cf-connecting-ip", ip);
    if let Some(key) = key {
        request = request.with_header("authorization", &format!("Bearer {key}"));
    }
    block_on(handle(app, s, request))
}

fn post(app: &App, s: &Sqlite, path: &str, ip: &str, body: &Value) -> Response {
    let request = Request::new(Method::Post, path)
        .with_header("cf-connecting-ip", ip)
        .with_header("authorization", &format!("Bearer {GOOD}"))
        .with_header("content-type", "application/json")
        .with_body(body.to_string().into_bytes());
    block_on(handle(app, s, request))
}

#[test]
fn failed_key_checks_are_limited_per_client_address() {
    let app = App::new(Config {
        auth_failure_limit: 3,
        ..Config::default()
    });
    let s = services();
    let statuses: Vec<u16> = [Some(WRONG), None, Some(NO_SCOPE)]
        .iter()
        .map(|key| get(&app, &s, "/api/v1/templates", "203.0.113.7", *key).status)
        .collect();
    assert_eq!(statuses, [401, 401, 403]);
    // Spent: even a good key from that address waits for the window (and is not looked up).
    let refused = get(&app, &s, "/api/v1/templates", "203.0.113.7", Some(GOOD));
    assert_eq!(refused.status, 429);
    assert!(refused.header("retry-after").is_some());
    let refused = get(
        &app,
        &s,
        "/api/v1/context?q=nodule",
        "203.0.113.7",
        Some(WRONG),
    );
    assert_eq!(refused.status, 429, "every keyed route shares the count");
    // Another address is not affected, and successes do not count.
    for _ in 0..5 {
        let ok = get(&app, &s, "/api/v1/templates", "203.0.113.8", Some(GOOD));
        assert_eq!(ok.status, 200);
    }
    assert_eq!(
        get(&app, &s, "/api/v1/templates", "203.0.113.8", Some(WRONG)).status,
        401
    );
    // Open routes never look at a key, so they are not affected either.
    assert_eq!(
        get(&app, &s, "/api/v1/systems", "203.0.113.7", None).status,
        200
    );
}

fn tool_call(name: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": name, "arguments": arguments } })
}

#[test]
fn groundings_spend_the_client_budget_by_their_length() {
    let app = App::new(Config {
        corpus_rate_limit: 40,
        ..Config::default()
    });
    let s = services();
    let long = "solid pulmonary nodule 7 mm in the right upper lobe. ".repeat(160);
    let long = &long[..8_000];
    let cost = crate::context::cost(long);
    assert_eq!(cost, 16, "8,000 characters weigh 16 requests");
    // One MCP grounding of 8,000 characters spends 16 of the 40.
    let r = post(
        &app,
        &s,
        "/mcp",
        "198.51.100.1",
        &tool_call("radref_ground", json!({ "text": long })),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-ratelimit-remaining"), Some("24"));
    // A search is one.
    let r = post(
        &app,
        &s,
        "/mcp",
        "198.51.100.1",
        &tool_call("radref_search", json!({ "query": "tirads" })),
    );
    assert_eq!(r.header("x-ratelimit-remaining"), Some("23"));
    // The keyed HTTP route weighs the same: 16 more.
    let r = post(
        &app,
        &s,
        "/api/v1/context",
        "198.51.100.1",
        &json!({ "text": long }),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("x-ratelimit-remaining"), Some("7"));
    // 7 left: a third long grounding is refused before it runs, and spends nothing.
    let r = post(
        &app,
        &s,
        "/mcp",
        "198.51.100.1",
        &tool_call("radref_ground", json!({ "text": long })),
    );
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_some());
    // A batch pays for every call in it.
    let batch = json!([
        tool_call("radref_search", json!({ "query": "bosniak" })),
        tool_call("radref_ground", json!({ "text": &long[..1_200] })),
    ]);
    let r = post(&app, &s, "/mcp", "198.51.100.1", &batch);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("x-ratelimit-remaining"),
        Some("2"),
        "the refused one spent only its arrival (6 left); the batch 1 + 3 (2 left)"
    );
}

#[test]
fn a_handler_run_again_for_an_unread_pack_spends_its_units_once() {
    use crate::call::Call;
    let app = App::new(Config {
        corpus_rate_limit: 40,
        ..Config::default()
    });
    let s = services();
    let request =
        Request::new(Method::Post, "/mcp").with_header("cf-connecting-ip", "198.51.100.9");
    let call = Call {
        app: &app,
        services: &s,
        request: &request,
        params: Default::default(),
        who: None,
        charged: Default::default(),
    };
    let left = || {
        let now = crate::services::Services::now_ms(&s) / 1000;
        app.corpus_limiter.peek("198.51.100.9", now).remaining
    };
    let before = left();
    // The first pass spends 5 and 3; the dispatcher runs it again once the pack it met is
    // read, and the same asks spend nothing more; a third ask beyond them spends its own.
    call.begin_pass();
    call.charge(5).unwrap();
    call.charge(3).unwrap();
    assert_eq!(left(), before - 8);
    call.begin_pass();
    call.charge(5).unwrap();
    call.charge(3).unwrap();
    assert_eq!(left(), before - 8);
    call.charge(2).unwrap();
    assert_eq!(left(), before - 10);
    // A refused ask spends nothing, and is refused again on the next pass.
    call.begin_pass();
    assert!(call.charge(10 + 100).is_err());
    assert_eq!(left(), before - 10);
    call.begin_pass();
    assert!(call.charge(10 + 100).is_err());
    assert_eq!(left(), before - 10);
}
