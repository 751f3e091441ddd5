//! Webhooks end to end: subscriptions over HTTP, events published, delivered by the worker's
//! real local Queue to a receiver this test runs on 127.0.0.1, under each fault mode.
//!
//! `make test` starts the worker with `ALLOW_HTTP_LOOPBACK=true` (so http://127.0.0.1 may
//! subscribe) and a short retry schedule (`WEBHOOK_RETRY_DELAYS=2,2,2,2`). Each scenario has its
//! own user (tests/fixtures/keys.sql), because events fan out to all of the publisher's
//! subscriptions.

use crate::support::{send, Reply};
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SECRET: &str = "receiver-shared-secret-0001";

fn key(n: u32) -> String {
    format!("rr_whsc{n:04}_webhookScenarioKeyNumber{n:04}")
}

fn call(key: &str, method: &str, path: &str, body: Option<Value>) -> Reply {
    let auth = format!("Bearer {key}");
    let mut headers = vec![("Authorization", auth.as_str())];
    let bytes = body.map(|b| b.to_string().into_bytes());
    if bytes.is_some() {
        headers.push(("Content-Type", "application/json"));
    }
    send(method, path, &headers, bytes.as_deref())
}

/// One request the receiver got.
#[derive(Clone, Debug)]
struct Received {
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    at: Instant,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name} header"))
    }
}

/// A subscriber endpoint on loopback. The first path segment names the scenario, the second
/// the fault mode:
/// `ok` 200; `flaky` 500 then 200; `fail` always 500; `slow` no answer for 7 s, then 200;
/// `reset` the connection reset, then 200; `redirect` 301 to `/<scenario>/target`, then 200.
struct Receiver {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = log.clone();
                std::thread::spawn(move || serve(stream, port, log));
            }
        });
        Receiver { port, received }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn requests(&self, path: &str) -> Vec<Received> {
        let all = self.received.lock().unwrap();
        all.iter().filter(|r| r.path == path).cloned().collect()
    }

    /// Waits until `path` has received `n` requests (or the time is up), and returns them.
    fn wait_for(&self, path: &str, n: usize, within: Duration) -> Vec<Received> {
        let start = Instant::now();
        loop {
            let got = self.requests(path);
            if got.len() >= n || start.elapsed() > within {
                return got;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn serve(stream: TcpStream, port: u16, log: Arc<Mutex<Vec<Received>>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((n, v)) = h.trim_end().split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let seen_before = {
        let mut all = log.lock().unwrap();
        let n = all.iter().filter(|r| r.path == path).count();
        all.push(Received {
            path: path.clone(),
            headers,
            body,
            at: Instant::now(),
        });
        n
    };
    let mode = path.split('/').nth(2).unwrap_or("ok");
    let mut stream = stream;
    let status = match (mode, seen_before) {
        ("fail", _) | ("flaky", 0) => "500 Internal Server Error",
        ("slow", 0) => {
            std::thread::sleep(Duration::from_secs(7));
            "200 OK"
        }
        ("reset", 0) => {
            // SO_LINGER 0: closing sends a reset instead of a graceful close.
            let _ = socket_linger_zero(&stream);
            drop(stream);
            return;
        }
        ("redirect", 0) => {
            let scenario = path.split('/').nth(1).unwrap_or("");
            let to = format!("http://127.0.0.1:{port}/{scenario}/target");
            let _ = write!(
                stream,
                "HTTP/1.1 301 Moved Permanently\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            return;
        }
        _ => "200 OK",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
    );
}

#[cfg(unix)]
fn socket_linger_zero(stream: &TcpStream) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    #[repr(C)]
    struct Linger {
        l_onoff: i32,
        l_linger: i32,
    }
    extern "C" {
        fn setsockopt(fd: i32, level: i32, name: i32, value: *const Linger, len: u32) -> i32;
    }
    const SOL_SOCKET: i32 = 1;
    const SO_LINGER: i32 = 13;
    let linger = Linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket descriptor and a correctly sized, live option value.
    let rc = unsafe {
        setsockopt(
            stream.as_raw_fd(),
            SOL_SOCKET,
            SO_LINGER,
            &linger,
            std::mem::size_of::<Linger>() as u32,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn receiver() -> &'static Receiver {
    static RECEIVER: std::sync::OnceLock<Receiver> = std::sync::OnceLock::new();
    RECEIVER.get_or_init(Receiver::start)
}

fn subscribe(key: &str, path: &str, events: &[&str]) -> String {
    let reply = call(
        key,
        "POST",
        "/api/v1/webhooks",
        Some(json!({ "url": receiver().url(path), "events": events, "secret": SECRET })),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
    let body = reply.json();
    assert!(body["data"].get("secret").is_none(), "never the secret");
    assert_eq!(body["data"]["active"], true);
    body["data"]["id"].as_str().unwrap().to_string()
}

fn publish(key: &str, event_type: &str, report_id: &str) -> Value {
    let reply = call(
        key,
        "POST",
        "/api/v1/events",
        Some(json!({ "type": event_type, "data": {
            "report_id": report_id, "exam_type": "CT chest", "status": "final",
            "has_critical_finding": false,
        }})),
    );
    assert_eq!(reply.status, 202, "{}", reply.body);
    reply.json()
}

fn attempts(key: &str, webhook: &str) -> Vec<Value> {
    let reply = call(
        key,
        "GET",
        &format!("/api/v1/webhooks/{webhook}/deliveries?limit=100"),
        None,
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()["data"].as_array().unwrap().clone()
}

/// Waits for the delivery log to hold `n` attempts (recording follows the post closely).
fn wait_attempts(key: &str, webhook: &str, n: usize, within: Duration) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let got = attempts(key, webhook);
        if got.len() >= n || start.elapsed() > within {
            return got;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn hmac_hex(key: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// Verifies a delivery the way a subscriber would, from the raw bytes.
fn assert_signed(r: &Received) {
    // One signature per active secret, space-separated (two during a rotation's overlap).
    let radref = format!("sha256={}", hmac_hex(SECRET.as_bytes(), &r.body));
    assert!(
        r.header("x-radref-signature")
            .split(' ')
            .any(|s| s == radref),
        "X-Radref-Signature"
    );
    let id = r.header("webhook-id");
    let ts = r.header("webhook-timestamp");
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(format!("{id}.{ts}.").as_bytes());
    mac.update(&r.body);
    let expected = format!(
        "v1,{}",
        radref::webhooks::base64(&mac.finalize().into_bytes())
    );
    assert!(
        r.header("webhook-signature")
            .split(' ')
            .any(|s| s == expected),
        "Standard Webhooks signature"
    );
    assert!(r.header("content-type").starts_with("application/json"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let ts: u64 = ts.parse().unwrap();
    assert!(now.abs_diff(ts) < 300, "timestamp is current");
}

const WAIT: Duration = Duration::from_secs(40);

#[test]
fn delivered_signed_once_and_only_to_subscribers_of_the_type() {
    let key = key(1);
    let finalized = subscribe(&key, "/s1/ok", &["report.finalized"]);
    let _sent_only = subscribe(&key, "/s1b/ok", &["report.sent"]);
    // Another user's subscription to the same type gets nothing of this user's events.
    let _other_user = subscribe(&self::key(9), "/s9/ok", &["report.finalized"]);
    let published = publish(&key, "report.finalized", "r-s1");
    assert_eq!(published["meta"]["deliveries"], 1);
    let event = &published["data"];
    let got = receiver().wait_for("/s1/ok", 1, WAIT);
    assert_eq!(got.len(), 1, "delivered");
    let r = &got[0];
    assert_signed(r);
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(&body, event, "the envelope as published");
    assert_eq!(body["data"]["has_critical_finding"], false);
    assert_eq!(r.header("webhook-id"), event["id"].as_str().unwrap());
    assert_eq!(r.header("x-radref-event"), "report.finalized");
    let log = wait_attempts(&key, &finalized, 1, WAIT);
    assert_eq!(log[0]["outcome"], "succeeded");
    assert_eq!(log[0]["status_code"], 200);
    assert_eq!(log[0]["attempt"], 1);
    assert_eq!(log[0]["event_id"], event["id"]);
    // Nothing more: not to the other type, not to the other user, not twice.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(receiver().requests("/s1/ok").len(), 1, "not doubled");
    assert!(receiver().requests("/s1b/ok").is_empty());
    assert!(receiver().requests("/s9/ok").is_empty());

    // Redelivery: the same bytes and id again, a new run of attempts.
    let reply = call(
        &key,
        "POST",
        &format!(
            "/api/v1/webhooks/{finalized}/deliveries/{}/redeliver",
            event["id"].as_str().unwrap()
        ),
        None,
    );
    assert_eq!(reply.status, 202, "{}", reply.body);
    let got = receiver().wait_for("/s1/ok", 2, WAIT);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].body, got[1].body);
    assert_eq!(got[1].header("webhook-id"), event["id"].as_str().unwrap());
}

#[test]
fn a_500_is_retried_with_the_same_body_and_id() {
    let key = key(2);
    let id = subscribe(&key, "/s2/flaky", &["report.finalized"]);
    let published = publish(&key, "report.finalized", "r-s2");
    let got = receiver().wait_for("/s2/flaky", 2, WAIT);
    assert_eq!(got.len(), 2, "one retry after the 500");
    assert_eq!(got[0].body, got[1].body, "byte-identical");
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"));
    assert_eq!(got[0].header("x-radref-attempt"), "1");
    assert_eq!(got[1].header("x-radref-attempt"), "2");
    got.iter().for_each(assert_signed);
    assert!(
        got[1].at.duration_since(got[0].at) >= Duration::from_secs(2),
        "the retry waits for its delay"
    );
    let log = wait_attempts(&key, &id, 2, WAIT);
    let outcomes: Vec<(&Value, &Value, &Value)> = log
        .iter()
        .map(|a| (&a["attempt"], &a["outcome"], &a["status_code"]))
        .collect();
    assert_eq!(
        outcomes,
        [
            (&json!(2), &json!("succeeded"), &json!(200)),
            (&json!(1), &json!("failed"), &json!(500)),
        ]
    );
    assert_eq!(log[1]["event_id"], published["data"]["id"]);
    assert!(log[1]["next_attempt_at"].is_string());
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(receiver().requests("/s2/flaky").len(), 2, "no third post");
}

#[test]
fn five_failures_deactivate_and_reactivation_resumes() {
    let key = key(3);
    let id = subscribe(&key, "/s3/fail", &["report.finalized", "report.updated"]);
    publish(&key, "report.finalized", "r-s3");
    let got = receiver().wait_for("/s3/fail", 5, Duration::from_secs(60));
    assert_eq!(got.len(), 5, "five attempts");
    let numbers: Vec<&str> = got.iter().map(|r| r.header("x-radref-attempt")).collect();
    assert_eq!(numbers, ["1", "2", "3", "4", "5"]);
    let log = wait_attempts(&key, &id, 5, WAIT);
    assert_eq!(log.len(), 5);
    assert!(log.iter().all(|a| a["outcome"] == "failed"));
    // Recording the fifth attempt and deactivating are one batch.
    let w = call(&key, "GET", &format!("/api/v1/webhooks/{id}"), None).json();
    assert_eq!(w["data"]["active"], false);
    assert_eq!(w["data"]["deactivated_reason"], "delivery_failures");
    // Inactive: nothing is delivered, and the test function says why.
    let published = publish(&key, "report.updated", "r-s3b");
    assert_eq!(published["meta"]["deliveries"], 0);
    let test = call(&key, "POST", &format!("/api/v1/webhooks/{id}/test"), None);
    assert_eq!(test.status, 409);
    assert_eq!(test.json()["error"]["code"], "conflict");
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(receiver().requests("/s3/fail").len(), 5, "no sixth attempt");
    // Reactivated, it receives again.
    let reply = call(
        &key,
        "PATCH",
        &format!("/api/v1/webhooks/{id}"),
        Some(json!({ "active": true })),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["data"]["active"], true);
    assert_eq!(reply.json()["data"]["deactivated_reason"], Value::Null);
    publish(&key, "report.updated", "r-s3c");
    let got = receiver().wait_for("/s3/fail", 6, WAIT);
    assert_eq!(got.len(), 6);
    assert_eq!(got[5].header("x-radref-event"), "report.updated");
}

#[test]
fn slow_reset_and_redirecting_subscribers_fail_the_attempt() {
    let key = key(4);
    let slow = subscribe(&key, "/s4/slow", &["report.sent"]);
    let reset = subscribe(&key, "/s4/reset", &["report.sent"]);
    let redirect = subscribe(&key, "/s4/redirect", &["report.sent"]);
    let published = publish(&key, "report.sent", "r-s4");
    assert_eq!(published["meta"]["deliveries"], 3);
    for (id, path) in [
        (&slow, "/s4/slow"),
        (&reset, "/s4/reset"),
        (&redirect, "/s4/redirect"),
    ] {
        let got = receiver().wait_for(path, 2, WAIT);
        assert_eq!(got.len(), 2, "{path}: failed once, then delivered");
        let log = wait_attempts(&key, id, 2, WAIT);
        assert_eq!(log[0]["outcome"], "succeeded", "{path}");
        assert_eq!(log[1]["outcome"], "failed", "{path}");
        let error = log[1]["error"].as_str().unwrap_or_default();
        match path {
            "/s4/slow" => {
                assert!(error.contains("5 seconds"), "{error}");
                assert_eq!(log[1]["status_code"], Value::Null);
                assert!(log[1]["duration_ms"].as_i64().unwrap() >= 4_900);
            }
            "/s4/reset" => {
                assert_eq!(log[1]["status_code"], Value::Null, "{error}");
                // A reset is a network error, reported as one at once: not a 5-second timeout.
                assert!(error.starts_with("network error"), "{error}");
                assert!(
                    log[1]["duration_ms"].as_i64().unwrap() < 4_000,
                    "{:?}",
                    log[1]
                );
            }
            _ => {
                assert_eq!(log[1]["status_code"], 301);
                assert!(error.contains("redirect"), "{error}");
            }
        }
    }
    assert!(
        receiver().requests("/s4/target").is_empty(),
        "redirects are not followed"
    );
}

#[test]
fn test_events_reach_only_that_subscription() {
    let key = key(5);
    let id = subscribe(&key, "/s5/ok", &["report.finalized"]);
    let other = subscribe(&key, "/s5b/ok", &["connection.status_changed"]);
    let reply = call(
        &key,
        "POST",
        &format!("/api/v1/webhooks/{id}/test"),
        Some(json!({ "type": "connection.status_changed" })),
    );
    assert_eq!(reply.status, 202, "{}", reply.body);
    let event = reply.json()["data"].clone();
    assert_eq!(event["type"], "connection.status_changed");
    let got = receiver().wait_for("/s5/ok", 1, WAIT);
    assert_eq!(got.len(), 1);
    assert_signed(&got[0]);
    let body: Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(body, event);
    // A test event with the default type has the interface's report.finalized shape.
    let reply = call(&key, "POST", &format!("/api/v1/webhooks/{id}/test"), None);
    assert_eq!(reply.status, 202);
    let data = &reply.json()["data"]["data"];
    for field in ["report_id", "exam_type", "status"] {
        assert!(data[field].is_string(), "{field}");
    }
    assert!(data["has_critical_finding"].is_boolean());
    std::thread::sleep(Duration::from_secs(3));
    assert!(receiver().requests("/s5b/ok").is_empty());
    assert!(attempts(&key, &other).is_empty());
}

#[test]
fn subscriptions_crud_ownership_and_validation() {
    let (alice, bob) = (key(6), key(7));
    let id = subscribe(&alice, "/s6/ok", &["report.created"]);
    // Update, read back, list.
    let reply = call(
        &alice,
        "PATCH",
        &format!("/api/v1/webhooks/{id}"),
        Some(
            json!({ "events": ["report.created", "report.sent"], "secret": "another-secret-value-01" }),
        ),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.json()["data"]["events"],
        json!(["report.created", "report.sent"])
    );
    assert!(!reply.body.contains("another-secret"));
    let list = call(&alice, "GET", "/api/v1/webhooks?limit=1", None).json();
    assert_eq!(list["meta"]["total"], 1);
    assert_eq!(list["data"][0]["id"], id.as_str());
    assert_eq!(list["meta"]["has_more"], false);
    // Another user: 403 on every route of the subscription, and it is not in their list.
    for (method, path, body) in [
        ("GET", format!("/api/v1/webhooks/{id}"), None),
        (
            "PATCH",
            format!("/api/v1/webhooks/{id}"),
            Some(json!({"active": false})),
        ),
        ("DELETE", format!("/api/v1/webhooks/{id}"), None),
        ("POST", format!("/api/v1/webhooks/{id}/test"), None),
        ("GET", format!("/api/v1/webhooks/{id}/deliveries"), None),
        (
            "POST",
            format!("/api/v1/webhooks/{id}/deliveries/evt_x/redeliver"),
            None,
        ),
    ] {
        let reply = call(&bob, method, &path, body);
        assert_eq!(reply.status, 403, "{method} {path}: {}", reply.body);
        assert_eq!(reply.json()["error"]["code"], "forbidden");
    }
    assert_eq!(
        call(&bob, "GET", "/api/v1/webhooks", None).json()["meta"]["total"],
        0
    );
    // Subscriber URLs that point inside are refused when subscribing.
    for url in [
        "http://example.org/hook",
        "https://127.0.0.1/hook",
        "https://10.0.0.8/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://localhost/hook",
        "https://user:pw@example.org/hook",
        "http://192.168.1.20:8080/hook",
    ] {
        let reply = call(
            &alice,
            "POST",
            "/api/v1/webhooks",
            Some(json!({ "url": url, "events": ["report.sent"], "secret": SECRET })),
        );
        assert_eq!(reply.status, 422, "{url}: {}", reply.body);
        assert_eq!(reply.json()["error"]["details"]["field"], "url", "{url}");
    }
    for (body, field) in [
        (
            json!({"url": receiver().url("/x"), "events": [], "secret": SECRET}),
            "events",
        ),
        (
            json!({"url": receiver().url("/x"), "events": ["report.archived"], "secret": SECRET}),
            "events",
        ),
        (
            json!({"url": receiver().url("/x"), "events": ["report.sent"], "secret": "too-short"}),
            "secret",
        ),
    ] {
        let reply = call(&alice, "POST", "/api/v1/webhooks", Some(body));
        assert_eq!(reply.status, 422, "{}", reply.body);
        assert_eq!(reply.json()["error"]["details"]["field"], field);
    }
    // Delete, then it is gone.
    assert_eq!(
        call(&alice, "DELETE", &format!("/api/v1/webhooks/{id}"), None).status,
        204
    );
    assert_eq!(
        call(&alice, "GET", &format!("/api/v1/webhooks/{id}"), None).status,
        404
    );
}

#[test]
fn keys_and_scopes() {
    let none = send("GET", "/api/v1/webhooks", &[], None);
    assert_eq!(none.status, 401);
    // A templates-only key may neither manage webhooks nor publish.
    let templates_key = "rr_tplalice_templatesKeyAliceIntegration01";
    assert_eq!(
        call(templates_key, "GET", "/api/v1/webhooks", None).status,
        403
    );
    let reply = call(
        templates_key,
        "POST",
        "/api/v1/events",
        Some(json!({"type": "report.sent", "data": {}})),
    );
    assert_eq!(reply.status, 403);
    // Publishing validates report.finalized's data, naming the field.
    let reply = call(
        &key(8),
        "POST",
        "/api/v1/events",
        Some(
            json!({"type": "report.finalized", "data": {"report_id": "r", "exam_type": "CT", "status": "final"}}),
        ),
    );
    assert_eq!(reply.status, 422);
    assert_eq!(
        reply.json()["error"]["details"]["field"],
        "data.has_critical_finding"
    );
}

#[test]
fn concurrent_publishes_with_one_idempotency_key_make_one_event() {
    let key = key(10);
    let _id = subscribe(&key, "/s10/ok", &["report.finalized"]);
    let body = json!({ "type": "report.finalized", "data": {
        "report_id": "r-s10", "exam_type": "CT chest", "status": "final",
        "has_critical_finding": true,
    }})
    .to_string();
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (key, body) = (&key, &body);
                scope.spawn(move || {
                    let auth = format!("Bearer {key}");
                    send(
                        "POST",
                        "/api/v1/events",
                        &[
                            ("Authorization", auth.as_str()),
                            ("Content-Type", "application/json"),
                            ("Idempotency-Key", "report-r-s10-final"),
                        ],
                        Some(body.as_bytes()),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ids: Vec<Value> = replies
        .iter()
        .map(|r| {
            assert_eq!(r.status, 202, "{}", r.body);
            r.json()["data"]["id"].clone()
        })
        .collect();
    assert!(ids.iter().all(|id| id == &ids[0]), "one event: {ids:?}");
    let replayed = replies
        .iter()
        .filter(|r| r.header("idempotent-replayed") == Some("true"))
        .count();
    assert_eq!(replayed, 3, "three answers are replays of the first");
    let got = receiver().wait_for("/s10/ok", 1, WAIT);
    assert_eq!(got.len(), 1);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(receiver().requests("/s10/ok").len(), 1, "delivered once");
}

#[test]
fn the_daily_retention_sweep_runs_and_keeps_what_is_recent() {
    // wrangler's /__scheduled runs the scheduled handler (the Cron Trigger), as the platform
    // would at 03:17 UTC. With 30 days of retention nothing of this run is old enough to go.
    let key = key(8);
    let id = subscribe(&key, "/s8/ok", &["report.sent"]);
    publish(&key, "report.sent", "r-s8");
    assert_eq!(receiver().wait_for("/s8/ok", 1, WAIT).len(), 1);
    wait_attempts(&key, &id, 1, WAIT);
    let reply = send("GET", "/__scheduled?cron=17+3+*+*+*", &[], None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(attempts(&key, &id).len(), 1, "recent attempts are kept");
    assert_eq!(send("GET", "/api/v1/health", &[], None).status, 200);
}

#[test]
fn concurrent_redelivers_of_one_event_give_one_delivery() {
    let key = key(11);
    let id = subscribe(&key, "/s11/ok", &["report.sent"]);
    let event = publish(&key, "report.sent", "r-s11")["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(receiver().wait_for("/s11/ok", 1, WAIT).len(), 1);
    wait_attempts(&key, &id, 1, WAIT);
    let path = format!("/api/v1/webhooks/{id}/deliveries/{event}/redeliver");
    let barrier = Arc::new(std::sync::Barrier::new(8));
    let statuses: Vec<u16> = (0..8)
        .map(|_| {
            let (key, path, barrier) = (key.clone(), path.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                call(&key, "POST", &path, None).status
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    let accepted = statuses.iter().filter(|s| **s == 202).count();
    let refused = statuses.iter().filter(|s| **s == 409).count();
    assert_eq!((accepted, refused), (1, 7), "{statuses:?}");
    assert_eq!(receiver().wait_for("/s11/ok", 2, WAIT).len(), 2);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        receiver().requests("/s11/ok").len(),
        2,
        "the first delivery and one redelivery"
    );
}

#[test]
fn event_data_arrives_with_the_publishers_digits_and_escapes() {
    // Scenario 10's user, on a type its other test never subscribes to.
    let key = key(10);
    let _id = subscribe(&key, "/s10x/ok", &["connection.status_changed"]);
    let data = "{\"connection_id\":\"c\\u00e9-1\",\"sequence\":123456789012345678901234567890,\
                \"offset\":-0,\"ratio\":0.10000000000000000555111512312578270211815834045,\
                \"ids\":[9007199254740993,18446744073709551616]}";
    // Spacing in the request does not matter; the tokens are kept as written.
    let body = format!(
        "{{ \"type\": \"connection.status_changed\",\n  \"data\": {} }}",
        data.replace(',', ", ")
    );
    let auth = format!("Bearer {key}");
    let reply = send(
        "POST",
        "/api/v1/events",
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
        Some(body.as_bytes()),
    );
    assert_eq!(reply.status, 202, "{}", reply.body);
    let exact = format!("\"data\":{data}");
    assert!(reply.body.contains(&exact), "the answer: {}", reply.body);
    let got = receiver().wait_for("/s10x/ok", 1, WAIT);
    assert_eq!(got.len(), 1, "delivered");
    assert_signed(&got[0]);
    let delivered = String::from_utf8(got[0].body.clone()).unwrap();
    assert!(delivered.contains(&exact), "delivered: {delivered}");
    // A number no 64-bit float holds is refused by name, not rounded to infinity.
    let reply = send(
        "POST",
        "/api/v1/events",
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
        Some(br#"{"type": "connection.status_changed", "data": {"n": 1e400}}"#),
    );
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert_eq!(reply.json()["error"]["details"]["field"], "data");
}

#[test]
fn a_rotated_secret_signs_beside_the_old_one_during_the_overlap() {
    let key = key(13);
    let id = subscribe(&key, "/s13/ok", &["report.finalized"]);
    let reply = call(
        &key,
        "POST",
        &format!("/api/v1/webhooks/{id}/rotate"),
        Some(json!({ "overlap_hours": 24 })),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let rotated = reply.json();
    let new = rotated["secret"].as_str().unwrap().to_string();
    assert!(rotated["data"]["previous_secret_expires_at"].is_string());
    publish(&key, "report.finalized", "r-s13");
    let got = receiver().wait_for("/s13/ok", 1, WAIT);
    let r = &got[0];
    // Both secrets sign, the new one first: a receiver still on the old secret and one already
    // on the new one both accept the delivery.
    let radref: Vec<&str> = r.header("x-radref-signature").split(' ').collect();
    assert_eq!(
        radref,
        [
            format!("sha256={}", hmac_hex(new.as_bytes(), &r.body)),
            format!("sha256={}", hmac_hex(SECRET.as_bytes(), &r.body))
        ]
    );
    assert_signed(r);
    assert_eq!(r.header("webhook-signature").split(' ').count(), 2);
    // The secret is not shown again.
    let shown = call(&key, "GET", &format!("/api/v1/webhooks/{id}"), None);
    assert!(!shown.body.contains(&new));
}
