//! The spine every route shares: health, 404, 405, CORS and security headers.

use crate::support::{get, send};

#[test]
fn health_answers_with_version_and_corpus_hash() {
    let reply = get("/api/v1/health");
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let body = reply.json();
    assert_eq!(body["status"], "ok");
    assert!(body["version"].as_str().is_some_and(|v| !v.is_empty()));
    let hash = body["corpus"]["hash"].as_str().expect("corpus hash");
    assert_eq!(hash.len(), 64);
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()));
}

#[test]
fn unknown_path_is_a_json_404() {
    let reply = get("/api/v1/no-such-route");
    assert_eq!(reply.status, 404);
    assert!(reply.json()["error"].is_string(), "{}", reply.body);
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
}

#[test]
fn unknown_app_path_uses_the_detailed_error_format() {
    let reply = get("/api/v1/templates/a/b/c");
    assert_eq!(reply.status, 404);
    assert_eq!(reply.json()["error"]["code"], "not_found");
}

#[test]
fn wrong_method_is_405_with_allow() {
    let reply = send("DELETE", "/api/v1/health", &[], None);
    assert_eq!(reply.status, 405);
    let allow = reply.header("allow").expect("Allow header");
    assert!(allow.contains("GET"), "{allow}");
    assert!(reply.json()["error"].is_string());
}

#[test]
fn an_unknown_method_is_named_in_its_405() {
    for (method, path) in [
        ("TRACE", "/api/v1/health"),
        ("PROPFIND", "/api/v1/templates"),
    ] {
        let reply = send(method, path, &[], None);
        assert_eq!(reply.status, 405, "{method} {path}");
        assert!(reply.header("allow").is_some(), "{method} {path}");
        assert!(
            reply
                .body
                .contains(&format!("method {method} is not allowed")),
            "{method} {path}: {}",
            reply.body
        );
    }
}

#[test]
fn preflight_is_answered_204_with_cors() {
    let reply = send(
        "OPTIONS",
        "/api/v1/health",
        &[
            ("Origin", "https://viewer.example.org"),
            ("Access-Control-Request-Method", "GET"),
            ("Access-Control-Request-Headers", "authorization, x-api-key"),
        ],
        None,
    );
    assert_eq!(reply.status, 204);
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    let allowed = reply
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase();
    for h in ["authorization", "x-api-key", "content-type"] {
        assert!(allowed.contains(h), "{allowed}");
    }
    assert!(reply
        .header("access-control-allow-methods")
        .unwrap()
        .contains("GET"));
}

#[test]
fn real_request_carries_cors_and_security_headers() {
    let reply = send(
        "GET",
        "/api/v1/health",
        &[("Origin", "https://viewer.example.org")],
        None,
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    let exposed = reply
        .header("access-control-expose-headers")
        .unwrap()
        .to_ascii_lowercase();
    for h in [
        "etag",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ] {
        assert!(exposed.contains(h), "{exposed}");
    }
}
