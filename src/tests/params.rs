//! Parameters read the same way wherever they appear, through the whole app function: a date
//! must be a real calendar date, and a parameter that lists values takes a bounded number.

use crate::app::handle;
use crate::config::Config;
use crate::host::block_on;
use crate::host::sqlite::Sqlite;
use crate::http::{Method, Request};
use crate::services::App;
use serde_json::Value;

fn get(path: &str) -> (u16, Value) {
    let app = App::new(Config {
        corpus_rate_limit: u32::MAX,
        ..Config::default()
    });
    let r = block_on(handle(
        &app,
        &Sqlite::new(),
        Request::new(Method::Get, path),
    ));
    (r.status, serde_json::from_slice(&r.body).unwrap())
}

#[test]
fn an_impossible_calendar_date_is_refused_by_name() {
    for since in [
        "2020-02-30",
        "2021-02-29",
        "1900-02-29",
        "2023-04-31",
        "2023-06-31",
        "2023-09-31",
        "2023-11-31",
        "2023-00-10",
        "2023-13",
        "2023-01-00",
        "2023-01-32",
    ] {
        let (status, body) = get(&format!("/api/v1/changes?since={since}"));
        assert_eq!(status, 400, "{since}: {}", body["meta"]);
        let message = body["error"].as_str().unwrap_or_default();
        assert!(message.contains("'since'"), "{since}: {message}");
    }
    for since in [
        "2020-02-29",
        "2000-02-29",
        "2023-02-28",
        "2023-01-31",
        "2023-12-31",
        "2023-04-30",
        "2023-04",
        "2023",
    ] {
        let (status, body) = get(&format!("/api/v1/changes?since={since}"));
        assert_eq!(status, 200, "{since}: {}", body["error"]);
    }
}

const CONTEXT_KEY: &str = "rr_ctxlist1_contextKeyForListParamTests01";

fn context(method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let s = Sqlite::new().with_key(CONTEXT_KEY, "carol", "context");
    let mut request =
        Request::new(method, path).with_header("authorization", &format!("Bearer {CONTEXT_KEY}"));
    if let Some(body) = body {
        request = request
            .with_header("content-type", "application/json")
            .with_body(body.to_string());
    }
    let r = block_on(handle(&App::new(Config::default()), &s, request));
    (r.status, serde_json::from_slice(&r.body).unwrap())
}

#[test]
fn a_list_of_systems_is_bounded_and_counted_once() {
    use crate::context::MAX_SYSTEMS;
    let many = vec!["fleischner-2017"; MAX_SYSTEMS + 1];
    // Over the cap: refused by name, in GET and POST alike, before any slug is looked at.
    let (status, body) = context(
        Method::Get,
        &format!("/api/v1/context?systems={}", many.join(",")),
        None,
    );
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("'systems'"),
        "{body}"
    );
    let (status, body) = context(
        Method::Post,
        "/api/v1/context",
        Some(serde_json::json!({ "systems": many })),
    );
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("'systems'"),
        "{body}"
    );
    // Within it, a slug named twice is included, and echoed, once.
    let (status, body) = context(
        Method::Get,
        "/api/v1/context?systems=fleischner-2017,FLEISCHNER-2017,fleischner-2017&verified=false",
        None,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["query"]["systems"],
        serde_json::json!(["fleischner-2017"])
    );
    assert_eq!(body["systems"].as_array().unwrap().len(), 1);
}
