//! Every row of the endpoint table, through the whole app function on SQLite: each answers,
//! each keyed one refuses a missing key (401) and a key without its scope (403) in its own
//! error format, each path refuses a method it does not declare (405 with `Allow`), and every
//! link of `llms.txt` resolves.

use crate::app::handle;
use crate::config::Config;
use crate::error::ErrorFormat;
use crate::host::block_on;
use crate::host::sqlite::Sqlite;
use crate::http::{Method, Request, Response};
use crate::routes::{self, Access, ENDPOINTS};
use crate::services::App;
use serde_json::Value;

const ALL: &str = "rr_allscope1_keyWithEveryScopeForTests0001";
const NONE: &str = "rr_noscope01_keyWithoutAnyScopeForTests001";

fn services() -> Sqlite {
    Sqlite::new()
        .with_key(ALL, "alice", "context templates webhooks events:publish")
        .with_key(NONE, "bob", "nothing")
}

fn app() -> App {
    App::new(Config {
        corpus_rate_limit: u32::MAX,
        ..Config::default()
    })
}

fn call(s: &Sqlite, method: Method, path: &str, key: Option<&str>) -> Response {
    let mut request = Request::new(method, path);
    if matches!(method, Method::Put | Method::Patch) {
        // An empty change: the resource is looked up, nothing is written.
        request = request
            .with_header("content-type", "application/json")
            .with_body(b"{}".to_vec());
    }
    if let Some(key) = key {
        request = request.with_header("authorization", &format!("Bearer {key}"));
    }
    block_on(handle(&app(), s, request))
}

fn concrete(path: &str) -> String {
    path.replace("{id}", "x_unknown")
        .replace("{event_id}", "evt_unknown")
}

/// The error's code in the detailed format, or "simple" for the corpus format.
fn error_kind(r: &Response) -> String {
    let body: Value = serde_json::from_slice(&r.body).expect("a JSON error body");
    match &body["error"] {
        Value::String(_) => "simple".into(),
        Value::Object(e) => e["code"].as_str().unwrap_or_default().into(),
        other => panic!("not an error body: {other}"),
    }
}

#[test]
fn keyed_endpoints_refuse_a_missing_key_and_a_missing_scope_in_their_format() {
    let s = services();
    for e in ENDPOINTS
        .iter()
        .filter(|e| matches!(e.access, Access::Key(_)))
    {
        let path = concrete(e.path);
        let expected = |code: &str| match e.errors {
            ErrorFormat::Simple => "simple".to_string(),
            ErrorFormat::Detailed => code.to_string(),
        };
        let r = call(&s, e.method, &path, None);
        assert_eq!(r.status, 401, "{} {}", e.method, e.path);
        assert_eq!(
            error_kind(&r),
            expected("unauthorized"),
            "{} {}",
            e.method,
            e.path
        );
        let r = call(&s, e.method, &path, Some(NONE));
        assert_eq!(r.status, 403, "{} {}", e.method, e.path);
        assert_eq!(
            error_kind(&r),
            expected("forbidden"),
            "{} {}",
            e.method,
            e.path
        );
    }
}

#[test]
fn every_endpoint_answers_and_unknown_ids_are_404() {
    let s = services();
    for e in ENDPOINTS {
        let path = concrete(e.path);
        let key = matches!(e.access, Access::Key(_)).then_some(ALL);
        let r = call(&s, e.method, &path, key);
        assert!(
            r.status < 500 && r.status != 405 && r.status != 401 && r.status != 403,
            "{} {} answered {}",
            e.method,
            e.path,
            r.status
        );
        if e.path.contains("{id}") && e.method != Method::Post {
            assert_eq!(r.status, 404, "{} {}", e.method, e.path);
        }
    }
}

#[test]
fn every_path_refuses_the_methods_it_does_not_declare() {
    let s = services();
    let all = [
        Method::Get,
        Method::Post,
        Method::Put,
        Method::Patch,
        Method::Delete,
    ];
    for e in ENDPOINTS {
        let path = concrete(e.path);
        let allowed = routes::allowed(&path).expect("a declared path");
        // A method radref does not know at all is named in the answer, not called "OTHER".
        for name in ["TRACE", "CONNECT", "PROPFIND"] {
            let key = matches!(e.access, Access::Key(_)).then_some(ALL);
            let r = call(&s, Method::parse(name), &path, key);
            assert_eq!(r.status, 405, "{name} {}", e.path);
            let body = String::from_utf8_lossy(&r.body);
            assert!(
                body.contains(&format!("method {name} is not allowed")),
                "{name} {}: {body}",
                e.path
            );
            assert!(r.header("allow").is_some(), "{name} {}", e.path);
        }
        for method in all.iter().filter(|m| !allowed.contains(m)) {
            let r = call(&s, *method, &path, Some(ALL));
            assert_eq!(r.status, 405, "{method} {}", e.path);
            let allow = r.header("allow").unwrap_or_default();
            assert!(
                allow.contains(e.method.as_str()),
                "{method} {}: {allow}",
                e.path
            );
        }
        // HEAD answers wherever GET does, without a body.
        if e.method == Method::Get {
            let key = matches!(e.access, Access::Key(_)).then_some(ALL);
            let get = call(&s, Method::Get, &path, key);
            let head = call(&s, Method::Head, &path, key);
            assert_eq!(head.status, get.status, "HEAD {}", e.path);
            assert!(head.body.is_empty(), "HEAD {}", e.path);
        }
    }
}

#[test]
fn every_llms_txt_link_resolves() {
    let s = services();
    let text = call(&s, Method::Get, "/llms.txt", None);
    assert_eq!(text.status, 200);
    let text = String::from_utf8(text.body.to_vec()).unwrap();
    let placeholder = text.split('{').skip(1).any(|rest| {
        rest.split_once('}').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        })
    });
    assert!(!placeholder, "an unfilled placeholder in llms.txt");
    let links: Vec<&str> = text
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|link| link.starts_with('/') && *link != "/")
        .collect();
    assert!(links.len() >= 10, "{links:?}");
    for link in links {
        let path = link.split('?').next().unwrap_or_default();
        let allowed = routes::allowed(path).unwrap_or_else(|| panic!("{link} is not routed"));
        if allowed.contains(&Method::Get) {
            let r = call(&s, Method::Get, link, Some(ALL));
            assert_eq!(r.status, 200, "{link}");
        }
    }
}

#[test]
fn a_body_over_its_endpoints_cap_is_refused_before_the_key_and_the_limiter() {
    let s = services();
    for e in ENDPOINTS.iter().filter(|e| e.method != Method::Get) {
        let cap = e.op.body_limit();
        let path = concrete(e.path);
        // One byte over the cap, keyless: 413 in the row's format, not 401.
        let request = Request::new(e.method, &path)
            .with_header("content-type", "application/json")
            .with_body(vec![b' '; cap + 1]);
        let r = block_on(handle(&app(), &s, request));
        assert_eq!(r.status, 413, "{} {}", e.method.as_str(), e.path);
        let kind = error_kind(&r);
        match e.errors {
            ErrorFormat::Simple => assert_eq!(kind, "simple", "{}", e.path),
            ErrorFormat::Detailed => assert_eq!(kind, "payload_too_large", "{}", e.path),
        }
        // What the platform reports when Content-Length (or the bytes read) passed the cap.
        let mut request = Request::new(e.method, &path);
        request.body_too_large = true;
        let r = block_on(handle(&app(), &s, request));
        assert_eq!(r.status, 413, "{} {}", e.method.as_str(), e.path);
    }
    // The caps the platform asks for: the endpoint's, and none where no endpoint answers.
    assert_eq!(
        routes::body_limit(Method::Post, "/api/v1/templates"),
        routes::body::TEMPLATE
    );
    assert_eq!(routes::body_limit(Method::Post, "/mcp"), routes::body::MCP);
    assert_eq!(routes::body_limit(Method::Post, "/no/such/path"), 0);
    assert_eq!(routes::body_limit(Method::Put, "/api/v1/systems"), 0);
}
