//! The webhook routes and the consumer against real SQLite (the engine under D1), with the
//! migrations of `migrations/`, a scripted subscriber and a recorded queue. These cases need
//! control no HTTP client has: a message handed over twice, a claim held by another consumer,
//! a clock moved forward, a queue that refuses. The same paths run over HTTP with the real
//! queue in `tests/webhooks.rs`.

use crate::app::handle;
use crate::config::{Config, SecretKey};
use crate::host::block_on;
use crate::host::sqlite::Sqlite;
use crate::http::{Method, Request, Response};
use crate::services::{App, Outgoing, PostResult};
use crate::webhooks::delivery::{process, Disposition, LEASE_MS};
use serde_json::{json, Value};

const ALICE: &str = "rr_alice001_aliceKeyForSqliteTests000001";
const BOB: &str = "rr_bob00001_bobKeyForSqliteTests00000001";
const SECRET: &str = "whsec-alice-test-secret-0001";

/// Alice and Bob, each with a key for webhooks and publishing.
fn sqlite() -> Sqlite {
    Sqlite::new()
        .with_key(ALICE, "alice", "webhooks events:publish")
        .with_key(BOB, "bob", "webhooks events:publish")
}

fn app() -> App {
    App::new(Config {
        webhook_key: Some(SecretKey([42; 32])),
        ..Config::default()
    })
}

fn call(
    app: &App,
    s: &Sqlite,
    key: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request =
        Request::new(method, path).with_header("authorization", &format!("Bearer {key}"));
    if let Some(body) = body {
        request = request
            .with_header("content-type", "application/json")
            .with_body(body.to_string());
    }
    let response: Response = block_on(handle(app, s, request));
    let body = if response.body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&response.body).unwrap()
    };
    (response.status, body)
}

fn subscribe(app: &App, s: &Sqlite, key: &str, events: &[&str]) -> String {
    let (status, body) = call(
        app,
        s,
        key,
        Method::Post,
        "/api/v1/webhooks",
        Some(
            json!({ "url": "https://hooks.example.org/radref", "events": events, "secret": SECRET }),
        ),
    );
    assert_eq!(status, 201, "{body}");
    body["data"]["id"].as_str().unwrap().to_string()
}

fn publish(app: &App, s: &Sqlite, key: &str, event_type: &str) -> (u16, Value) {
    call(
        app,
        s,
        key,
        Method::Post,
        "/api/v1/events",
        Some(json!({ "type": event_type, "data": {
            "report_id": "r1", "exam_type": "CT chest", "status": "final", "has_critical_finding": true
        }})),
    )
}

/// Takes the queued messages, as the queue would hand them to the consumer.
fn take_queue(s: &Sqlite) -> Vec<Value> {
    s.queued.borrow_mut().drain(..).map(|m| m.body).collect()
}

fn consume(app: &App, s: &Sqlite, message: &Value) -> Disposition {
    block_on(process(&app.config, s, message))
}

fn header<'a>(post: &'a Outgoing, name: &str) -> &'a str {
    &post.headers.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn publish_fans_out_to_the_publishers_matching_active_subscriptions_only() {
    let (app, s) = (app(), sqlite());
    let finalized = subscribe(&app, &s, ALICE, &["report.finalized"]);
    let _other_type = subscribe(&app, &s, ALICE, &["report.sent"]);
    let _bobs = subscribe(&app, &s, BOB, &["report.finalized"]);
    let (status, body) = publish(&app, &s, ALICE, "report.finalized");
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["meta"]["deliveries"], 1);
    assert!(body["data"]["id"].as_str().unwrap().starts_with("evt_"));
    let queued = take_queue(&s);
    assert_eq!(queued.len(), 1);
    assert_eq!(consume(&app, &s, &queued[0]), Disposition::Ack);
    let posts = s.posts.borrow();
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].url, "https://hooks.example.org/radref");
    let sent: Value = serde_json::from_slice(&posts[0].body).unwrap();
    assert_eq!(
        sent, body["data"],
        "the envelope posted is the one published"
    );
    let row = s.scalar(&format!(
        "SELECT COUNT(*) FROM deliveries WHERE webhook_id = '{finalized}' AND state = 'succeeded'"
    ));
    assert_eq!(row, 1);
}

#[test]
fn every_attempt_is_signed_over_the_same_bytes() {
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized"]);
    publish(&app, &s, ALICE, "report.finalized");
    let message = take_queue(&s).remove(0);
    s.answers
        .borrow_mut()
        .extend([PostResult::Status(500), PostResult::Status(200)]);
    assert_eq!(consume(&app, &s, &message), Disposition::Retry(60));
    s.advance(60_000);
    assert_eq!(consume(&app, &s, &message), Disposition::Ack);
    let posts = s.posts.borrow();
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[0].body, posts[1].body, "byte-identical bodies");
    for (i, post) in posts.iter().enumerate() {
        assert!(crate::webhooks::verify_signature(
            SECRET.as_bytes(),
            &post.body,
            header(post, "x-radref-signature")
        ));
        let id = header(post, "webhook-id");
        let ts: u64 = header(post, "webhook-timestamp").parse().unwrap();
        assert_eq!(
            header(post, "webhook-signature"),
            crate::webhooks::standard_signature(SECRET.as_bytes(), id, ts, &post.body)
        );
        assert_eq!(header(post, "x-radref-attempt"), (i + 1).to_string());
        assert_eq!(post.timeout_ms, 5_000);
    }
    assert_eq!(
        header(&posts[0], "webhook-id"),
        header(&posts[1], "webhook-id")
    );
}

#[test]
fn a_message_handed_over_twice_posts_each_attempt_once() {
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized"]);
    publish(&app, &s, ALICE, "report.finalized");
    let message = take_queue(&s).remove(0);
    // A second consumer holds the claim: this copy waits, posting nothing.
    s.db.execute_batch(&format!(
        "UPDATE deliveries SET claimed_ms = {}",
        s.now.get()
    ))
    .unwrap();
    match consume(&app, &s, &message) {
        Disposition::Retry(secs) => assert!(u64::from(secs) * 1000 >= LEASE_MS),
        other => panic!("expected a retry, got {other:?}"),
    }
    assert!(s.posts.borrow().is_empty());
    // The claim was released: the first copy makes attempt 1, the duplicate finds it done.
    s.db.execute_batch("UPDATE deliveries SET claimed_ms = NULL")
        .unwrap();
    assert_eq!(consume(&app, &s, &message), Disposition::Ack);
    assert_eq!(consume(&app, &s, &message), Disposition::Ack);
    assert_eq!(s.posts.borrow().len(), 1);
    // An abandoned claim (a consumer that died) runs out and the attempt is made.
    let (app2, s2) = (self::app(), sqlite());
    subscribe(&app2, &s2, ALICE, &["report.finalized"]);
    publish(&app2, &s2, ALICE, "report.finalized");
    let message = take_queue(&s2).remove(0);
    s2.db
        .execute_batch(&format!(
            "UPDATE deliveries SET claimed_ms = {}",
            s2.now.get()
        ))
        .unwrap();
    s2.advance(LEASE_MS + 1);
    assert_eq!(consume(&app2, &s2, &message), Disposition::Ack);
    assert_eq!(s2.posts.borrow().len(), 1);
}

#[test]
fn an_early_or_duplicate_retry_waits_for_the_schedule() {
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized"]);
    publish(&app, &s, ALICE, "report.finalized");
    let message = take_queue(&s).remove(0);
    s.answers.borrow_mut().push_back(PostResult::TimedOut);
    assert_eq!(consume(&app, &s, &message), Disposition::Retry(60));
    s.advance(20_000);
    match consume(&app, &s, &message) {
        Disposition::Retry(secs) => assert!((39..=41).contains(&secs), "{secs}"),
        other => panic!("expected a retry, got {other:?}"),
    }
    assert_eq!(s.posts.borrow().len(), 1, "no attempt before its time");
}

#[test]
fn five_failures_deactivate_and_stop_pending_deliveries_then_reactivation_works() {
    let (app, s) = (app(), sqlite());
    let id = subscribe(&app, &s, ALICE, &["report.finalized", "report.sent"]);
    publish(&app, &s, ALICE, "report.finalized");
    let first = take_queue(&s).remove(0);
    publish(&app, &s, ALICE, "report.sent");
    let second = take_queue(&s).remove(0);
    let answers = [
        PostResult::Status(500),
        PostResult::Failed("network error: connection reset".into()),
        PostResult::Status(301),
        PostResult::TimedOut,
        PostResult::Status(404),
    ];
    s.answers.borrow_mut().extend(answers);
    let mut dispositions = Vec::new();
    for _ in 0..5 {
        let d = consume(&app, &s, &first);
        if let Disposition::Retry(secs) = d {
            s.advance(u64::from(secs) * 1000);
        }
        dispositions.push(d);
    }
    assert_eq!(
        dispositions,
        [
            Disposition::Retry(60),
            Disposition::Retry(300),
            Disposition::Retry(1800),
            Disposition::Retry(7200),
            Disposition::Ack
        ]
    );
    let (_, w) = call(
        &app,
        &s,
        ALICE,
        Method::Get,
        &format!("/api/v1/webhooks/{id}"),
        None,
    );
    assert_eq!(w["data"]["active"], false);
    assert_eq!(w["data"]["deactivated_reason"], "delivery_failures");
    // The other pending delivery stopped: its message is acked without a post.
    let posted = s.posts.borrow().len();
    assert_eq!(consume(&app, &s, &second), Disposition::Ack);
    assert_eq!(s.posts.borrow().len(), posted);
    // The log has the five attempts, newest first, with their errors.
    let (_, log) = call(
        &app,
        &s,
        ALICE,
        Method::Get,
        &format!("/api/v1/webhooks/{id}/deliveries"),
        None,
    );
    let attempts: Vec<i64> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["attempt"].as_i64().unwrap())
        .collect();
    assert_eq!(attempts, [5, 4, 3, 2, 1]);
    assert_eq!(log["data"][2]["status_code"], 301);
    assert!(log["data"][2]["error"]
        .as_str()
        .unwrap()
        .contains("redirect"));
    assert_eq!(log["data"][0]["next_attempt_at"], Value::Null);
    assert!(log["data"][1]["next_attempt_at"].is_string());
    // No deliveries while inactive; a test event is refused until reactivated.
    let (_, body) = publish(&app, &s, ALICE, "report.finalized");
    assert_eq!(body["meta"]["deliveries"], 0);
    let (status, _) = call(
        &app,
        &s,
        ALICE,
        Method::Post,
        &format!("/api/v1/webhooks/{id}/test"),
        None,
    );
    assert_eq!(status, 409);
    let (status, w) = call(
        &app,
        &s,
        ALICE,
        Method::Patch,
        &format!("/api/v1/webhooks/{id}"),
        Some(json!({"active": true})),
    );
    assert_eq!((status, &w["data"]["active"]), (200, &json!(true)));
    assert_eq!(w["data"]["deactivated_at"], Value::Null);
    let (_, body) = publish(&app, &s, ALICE, "report.finalized");
    assert_eq!(body["meta"]["deliveries"], 1);
    // Redelivering the failed event starts a fresh run of attempts.
    let event = log["data"][0]["event_id"].as_str().unwrap();
    let (status, _) = call(
        &app,
        &s,
        ALICE,
        Method::Post,
        &format!("/api/v1/webhooks/{id}/deliveries/{event}/redeliver"),
        None,
    );
    assert_eq!(status, 202);
}

#[test]
fn a_refused_enqueue_fails_the_publish_and_leaves_nothing_behind() {
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized"]);
    s.refuse_queue.set(true);
    let (status, body) = publish(&app, &s, ALICE, "report.finalized");
    assert_eq!(status, 503, "{body}");
    assert_eq!(s.scalar("SELECT COUNT(*) FROM events"), 0);
    assert_eq!(s.scalar("SELECT COUNT(*) FROM deliveries"), 0);
}

#[test]
fn secrets_are_sealed_and_never_returned() {
    let (app, s) = (app(), sqlite());
    let id = subscribe(&app, &s, ALICE, &["report.finalized"]);
    let stored: String =
        s.db.query_row("SELECT secret_ciphertext FROM webhooks", [], |r| r.get(0))
            .unwrap();
    assert!(!stored.contains(SECRET));
    let (_, one) = call(
        &app,
        &s,
        ALICE,
        Method::Get,
        &format!("/api/v1/webhooks/{id}"),
        None,
    );
    let (_, all) = call(&app, &s, ALICE, Method::Get, "/api/v1/webhooks", None);
    for text in [one.to_string(), all.to_string(), s.logs.borrow().join("\n")] {
        assert!(!text.contains(SECRET) && !text.contains("secret_ciphertext"));
    }
    // A changed secret signs the next attempt.
    let (status, _) = call(
        &app,
        &s,
        ALICE,
        Method::Patch,
        &format!("/api/v1/webhooks/{id}"),
        Some(json!({"secret": "a-brand-new-secret-0002"})),
    );
    assert_eq!(status, 200);
    call(
        &app,
        &s,
        ALICE,
        Method::Post,
        &format!("/api/v1/webhooks/{id}/test"),
        Some(json!({"type": "report.sent"})),
    );
    let message = take_queue(&s).remove(0);
    consume(&app, &s, &message);
    let post = &s.posts.borrow()[0];
    assert!(crate::webhooks::verify_signature(
        b"a-brand-new-secret-0002",
        &post.body,
        header(post, "x-radref-signature")
    ));
    assert_eq!(header(post, "x-radref-event"), "report.sent");
}

#[test]
fn other_users_and_bad_input() {
    let (app, s) = (app(), sqlite());
    let id = subscribe(&app, &s, ALICE, &["report.finalized"]);
    for (method, path) in [
        (Method::Get, format!("/api/v1/webhooks/{id}")),
        (Method::Patch, format!("/api/v1/webhooks/{id}")),
        (Method::Delete, format!("/api/v1/webhooks/{id}")),
        (Method::Post, format!("/api/v1/webhooks/{id}/test")),
        (Method::Get, format!("/api/v1/webhooks/{id}/deliveries")),
    ] {
        let body = (method == Method::Patch).then(|| json!({"active": false}));
        let (status, err) = call(&app, &s, BOB, method, &path, body);
        assert_eq!(status, 403, "{path}: {err}");
        assert_eq!(err["error"]["code"], "forbidden");
    }
    let (_, bobs) = call(&app, &s, BOB, Method::Get, "/api/v1/webhooks", None);
    assert_eq!(bobs["meta"]["total"], 0);
    for (body, field) in [
        (
            json!({"url": "https://10.0.0.1/h", "events": ["report.sent"], "secret": SECRET}),
            "url",
        ),
        (
            json!({"url": "http://127.0.0.1:9/h", "events": ["report.sent"], "secret": SECRET}),
            "url",
        ),
        (
            json!({"url": "https://a.example/h", "events": [], "secret": SECRET}),
            "events",
        ),
        (
            json!({"url": "https://a.example/h", "events": ["report.deleted"], "secret": SECRET}),
            "events",
        ),
        (
            json!({"url": "https://a.example/h", "events": ["report.sent"], "secret": "short"}),
            "secret",
        ),
        (
            json!({"url": "https://a.example/h", "events": ["report.sent"]}),
            "secret",
        ),
        (
            json!({"url": "https://a.example/h", "events": ["report.sent"], "secret": SECRET, "active": false}),
            "active",
        ),
    ] {
        let (status, err) = call(
            &app,
            &s,
            ALICE,
            Method::Post,
            "/api/v1/webhooks",
            Some(body),
        );
        assert_eq!(status, 422, "{err}");
        assert_eq!(err["error"]["details"]["field"], field);
    }
    for (body, field) in [
        (json!({"type": "report.removed", "data": {}}), "type"),
        (json!({"type": "report.finalized"}), "data"),
        (
            json!({"type": "report.finalized", "data": {"report_id": "r", "exam_type": "CT", "status": "final"}}),
            "data.has_critical_finding",
        ),
        (
            json!({"type": "report.finalized", "data": {"report_id": " ", "exam_type": "CT", "status": "final", "has_critical_finding": false}}),
            "data.report_id",
        ),
        (
            json!({"type": "report.finalized", "data": {"report_id": "r", "exam_type": 3, "status": "final", "has_critical_finding": false}}),
            "data.exam_type",
        ),
    ] {
        let (status, err) = call(&app, &s, ALICE, Method::Post, "/api/v1/events", Some(body));
        assert_eq!(status, 422, "{err}");
        assert_eq!(err["error"]["details"]["field"], field);
    }
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM events"),
        0,
        "nothing published by bad input"
    );
    // Deleting stops queued deliveries: the message is acked without a post.
    publish(&app, &s, ALICE, "report.finalized");
    let message = take_queue(&s).remove(0);
    let (status, _) = call(
        &app,
        &s,
        ALICE,
        Method::Delete,
        &format!("/api/v1/webhooks/{id}"),
        None,
    );
    assert_eq!(status, 204);
    assert_eq!(consume(&app, &s, &message), Disposition::Ack);
    assert!(s.posts.borrow().is_empty());
}

#[test]
fn without_a_sealing_key_subscriptions_are_unavailable_not_stored_in_clear() {
    let app = App::new(Config::default());
    let s = sqlite();
    let (status, _) = call(
        &app,
        &s,
        ALICE,
        Method::Post,
        "/api/v1/webhooks",
        Some(json!({"url": "https://a.example/h", "events": ["report.sent"], "secret": SECRET})),
    );
    assert_eq!(status, 503);
    assert_eq!(s.scalar("SELECT COUNT(*) FROM webhooks"), 0);
}

#[test]
fn an_idempotency_key_makes_a_retried_publish_return_the_first_event() {
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized"]);
    let body = json!({ "type": "report.finalized", "data": {
        "report_id": "r9", "exam_type": "MR", "status": "final", "has_critical_finding": false }});
    let publish_with = |key: &str, body: &Value| {
        let request = Request::new(Method::Post, "/api/v1/events")
            .with_header("authorization", &format!("Bearer {ALICE}"))
            .with_header("content-type", "application/json")
            .with_header("idempotency-key", key)
            .with_body(body.to_string());
        let r = block_on(handle(&app, &s, request));
        let json: Value = serde_json::from_slice(&r.body).unwrap();
        (
            r.status,
            r.header("idempotent-replayed").map(String::from),
            json,
        )
    };
    let (status, replayed, first) = publish_with("order-42", &body);
    assert_eq!((status, replayed), (202, None));
    let (status, replayed, again) = publish_with("order-42", &body);
    assert_eq!((status, replayed.as_deref()), (202, Some("true")));
    assert_eq!(
        again["data"], first["data"],
        "the same event, same id and bytes"
    );
    assert_eq!(again["meta"]["deliveries"], 1);
    assert_eq!(take_queue(&s).len(), 1, "queued once");
    assert_eq!(s.scalar("SELECT COUNT(*) FROM events"), 1);
    // The same key for a different event is a conflict; another user's key space is separate.
    let mut other = body.clone();
    other["data"]["report_id"] = json!("r10");
    let (status, _, err) = publish_with("order-42", &other);
    assert_eq!(status, 409);
    assert_eq!(err["error"]["details"]["field"], "Idempotency-Key");
    // Malformed keys are refused before anything is published.
    for bad in ["", "has space", &"k".repeat(256), "naïve"] {
        let (status, _, err) = publish_with(bad, &other);
        assert_eq!(status, 400, "{bad:?}: {err}");
    }
    assert_eq!(s.scalar("SELECT COUNT(*) FROM events"), 1);
}

#[test]
fn the_retention_sweep_removes_only_finished_and_old_deliveries() {
    use crate::webhooks::retention::{sweep, Swept};
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized", "report.sent"]);
    // An old delivery that succeeded, and an old one still pending (its retry far away).
    publish(&app, &s, ALICE, "report.finalized");
    let done = take_queue(&s).remove(0);
    assert_eq!(consume(&app, &s, &done), Disposition::Ack);
    publish(&app, &s, ALICE, "report.sent");
    let pending = take_queue(&s).remove(0);
    s.answers.borrow_mut().push_back(PostResult::Status(503));
    assert_eq!(consume(&app, &s, &pending), Disposition::Retry(60));
    s.db.execute_batch("UPDATE deliveries SET next_attempt_ms = next_attempt_ms + 40 * 86400000 WHERE state = 'pending'").unwrap();
    s.advance(31 * 86_400_000);
    // A recent one that succeeded.
    publish(&app, &s, ALICE, "report.finalized");
    let recent = take_queue(&s).remove(0);
    assert_eq!(consume(&app, &s, &recent), Disposition::Ack);

    let swept = block_on(sweep(&app.config, &s)).unwrap();
    assert_eq!(
        swept,
        Swept {
            attempts: 1,
            deliveries: 1,
            events: 1
        }
    );
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'"),
        1,
        "pending kept"
    );
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM attempts"),
        2,
        "the pending one's and the recent one's"
    );
    assert_eq!(s.scalar("SELECT COUNT(*) FROM events"), 2);
    assert_eq!(
        block_on(sweep(&app.config, &s)).unwrap(),
        Swept::default(),
        "idempotent"
    );
}

#[test]
fn one_pending_delivery_per_webhook_and_event_is_decided_by_the_database() {
    let (app, s) = (app(), sqlite());
    let id = subscribe(&app, &s, ALICE, &["report.finalized"]);
    let (_, event) = publish(&app, &s, ALICE, "report.finalized");
    let event = event["data"]["id"].as_str().unwrap().to_string();
    for message in take_queue(&s) {
        assert_eq!(consume(&app, &s, &message), Disposition::Ack);
    }
    let path = format!("/api/v1/webhooks/{id}/deliveries/{event}/redeliver");
    let statuses: Vec<u16> = (0..8)
        .map(|_| call(&app, &s, ALICE, Method::Post, &path, None).0)
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 202).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        7,
        "{statuses:?}"
    );
    // The index itself refuses a second pending row, whatever reads came before it: two
    // redelivers that both passed a check cannot both insert.
    let second = s.db.execute(
        "INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, next_attempt_ms, \
         created_at, updated_at) SELECT 'dlv_race', event_id, webhook_id, 'pending', 0, 0, 'x', 'x' \
         FROM deliveries WHERE state = 'pending' LIMIT 1",
        [],
    );
    assert!(second.unwrap_err().to_string().contains("UNIQUE"));
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'"),
        1
    );
    assert_eq!(
        take_queue(&s).len(),
        1,
        "one message for the one redelivery"
    );
}

#[test]
fn the_recovery_sweep_queues_stranded_deliveries_only() {
    use crate::webhooks::recovery::sweep;
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized", "report.sent"]);
    // Three deliveries whose messages are lost: one never attempted, one whose consumer died
    // holding its claim, one between retries.
    for _ in 0..2 {
        publish(&app, &s, ALICE, "report.finalized");
    }
    publish(&app, &s, ALICE, "report.sent");
    let messages = take_queue(&s);
    s.answers.borrow_mut().push_back(PostResult::Status(500));
    assert_eq!(consume(&app, &s, &messages[2]), Disposition::Retry(60));
    s.db.execute_batch(&format!(
        "UPDATE deliveries SET claimed_ms = {} WHERE state = 'pending' AND attempts = 0 \
         AND rowid = (SELECT MIN(rowid) FROM deliveries)",
        s.now.get()
    ))
    .unwrap();
    // Not yet: nothing is overdue by a lease.
    assert_eq!(block_on(sweep(&s)).unwrap(), 0);
    s.advance(LEASE_MS + 1);
    assert_eq!(
        block_on(sweep(&s)).unwrap(),
        2,
        "the unclaimed one and the dead claim; the retry is not due"
    );
    s.advance(60_000);
    // Finished deliveries and live claims are left alone: one more, the retry, now due.
    assert_eq!(block_on(sweep(&s)).unwrap(), 3);
    // Every queued message delivers; each delivery is posted once more, no more.
    let before = s.posts.borrow().len();
    for message in take_queue(&s) {
        assert_eq!(consume(&app, &s, &message), Disposition::Ack);
    }
    assert_eq!(s.posts.borrow().len(), before + 3);
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'succeeded'"),
        3
    );
    s.advance(LEASE_MS * 10);
    assert_eq!(block_on(sweep(&s)).unwrap(), 0, "nothing pending");
}

#[test]
fn a_live_claim_is_not_stranded() {
    use crate::webhooks::recovery::sweep;
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized"]);
    publish(&app, &s, ALICE, "report.finalized");
    take_queue(&s);
    s.advance(LEASE_MS * 2);
    s.db.execute_batch(&format!(
        "UPDATE deliveries SET claimed_ms = {}",
        s.now.get() - 1000
    ))
    .unwrap();
    assert_eq!(block_on(sweep(&s)).unwrap(), 0);
}

#[test]
fn an_expired_claim_blocks_neither_pause_nor_redeliver() {
    let (app, s) = (app(), sqlite());
    let id = subscribe(&app, &s, ALICE, &["report.finalized"]);
    let (_, event) = publish(&app, &s, ALICE, "report.finalized");
    let event = event["data"]["id"].as_str().unwrap().to_string();
    take_queue(&s);
    // The consumer that claimed it died; its message is gone.
    s.db.execute_batch(&format!(
        "UPDATE deliveries SET claimed_ms = {}",
        s.now.get()
    ))
    .unwrap();
    let redeliver = format!("/api/v1/webhooks/{id}/deliveries/{event}/redeliver");
    let (status, _) = call(&app, &s, ALICE, Method::Post, &redeliver, None);
    assert_eq!(status, 409, "a live claim: still in progress");
    assert!(take_queue(&s).is_empty());
    s.advance(LEASE_MS + 1);
    let (status, body) = call(&app, &s, ALICE, Method::Post, &redeliver, None);
    assert_eq!(status, 202, "{body}");
    let queued = take_queue(&s);
    assert_eq!(
        queued.len(),
        1,
        "the stranded delivery itself is queued again"
    );
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM deliveries"),
        1,
        "no second delivery"
    );
    // Pausing cancels it although the dead claim is still recorded.
    s.db.execute_batch(&format!(
        "UPDATE deliveries SET claimed_ms = {}",
        s.now.get() - LEASE_MS - 1
    ))
    .unwrap();
    let (status, _) = call(
        &app,
        &s,
        ALICE,
        Method::Patch,
        &format!("/api/v1/webhooks/{id}"),
        Some(json!({"active": false})),
    );
    assert_eq!(status, 200);
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM deliveries WHERE state = 'cancelled'"),
        1
    );
    assert_eq!(consume(&app, &s, &queued[0]), Disposition::Ack);
    assert!(
        s.posts.borrow().is_empty(),
        "a cancelled delivery posts nothing"
    );
}

#[test]
fn a_dead_lettered_message_goes_back_while_its_delivery_is_pending() {
    use crate::webhooks::recovery::revive;
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.finalized"]);
    publish(&app, &s, ALICE, "report.finalized");
    let message = take_queue(&s).remove(0);
    s.answers.borrow_mut().push_back(PostResult::Status(503));
    assert_eq!(consume(&app, &s, &message), Disposition::Retry(60));
    assert_eq!(block_on(revive(&s, &message)), Disposition::Ack);
    let again = s.queued.borrow_mut().drain(..).collect::<Vec<_>>();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].body, message);
    assert!(
        (59..=60).contains(&again[0].delay_secs),
        "due when the retry is: {}",
        again[0].delay_secs
    );
    s.advance(60_000);
    assert_eq!(consume(&app, &s, &message), Disposition::Ack);
    // Finished: a dead letter for it is dropped.
    assert_eq!(block_on(revive(&s, &message)), Disposition::Ack);
    assert!(take_queue(&s).is_empty());
    assert_eq!(block_on(revive(&s, &json!({}))), Disposition::Ack);
}

#[test]
fn the_cron_triggers_in_wrangler_toml_are_the_ones_the_code_knows() {
    let toml = include_str!("../../wrangler.toml");
    let crons = toml
        .lines()
        .find(|l| l.starts_with("crons"))
        .expect("a crons line");
    for cron in [
        crate::webhooks::recovery::CRON,
        crate::webhooks::retention::CRON,
    ] {
        assert!(crons.contains(&format!("\"{cron}\"")), "{cron} in {crons}");
    }
    assert!(toml.contains("queue = \"radref-deliveries-dlq\"\nmax_batch_size"));
}

/// Publishes a body given as text, so the test controls every byte the publisher sends.
fn publish_text(app: &App, s: &Sqlite, body: &str, key: Option<&str>) -> Response {
    let mut request = Request::new(Method::Post, "/api/v1/events")
        .with_header("authorization", &format!("Bearer {ALICE}"))
        .with_header("content-type", "application/json")
        .with_body(body.to_string());
    if let Some(key) = key {
        request = request.with_header("idempotency-key", key);
    }
    block_on(handle(app, s, request))
}

#[test]
fn event_data_is_delivered_as_the_publisher_wrote_it() {
    let (app, s) = (app(), sqlite());
    subscribe(&app, &s, ALICE, &["report.created"]);
    // Numbers a float would round or re-spell, escapes a parser would decode, and spacing.
    let sent = "{ \"big\": 123456789012345678901234567890, \"zero\": -0, \"tiny\": 1e-400,\n \
                \"exp\": 1E+2, \"long\": 0.10000000000000000555111512312578270211815834045,\n \
                \"id\": 12345678901234567890123, \"text\": \"caf\\u00e9 \\ud83d\\ude00  \\\"q\\\" \\/\",\n \
                \"list\": [ 1.0, -0.0, { \"k\" : 9007199254740993 } ] }";
    // What is stored and delivered: the same text, without the spacing between tokens.
    let exact = "{\"big\":123456789012345678901234567890,\"zero\":-0,\"tiny\":1e-400,\
                 \"exp\":1E+2,\"long\":0.10000000000000000555111512312578270211815834045,\
                 \"id\":12345678901234567890123,\"text\":\"caf\\u00e9 \\ud83d\\ude00  \\\"q\\\" \\/\",\
                 \"list\":[1.0,-0.0,{\"k\":9007199254740993}]}";
    let body = format!("{{\"type\": \"report.created\", \"data\": {sent}}}");
    let r = publish_text(&app, &s, &body, Some("exact-1"));
    let answer = String::from_utf8_lossy(&r.body).to_string();
    assert_eq!(r.status, 202, "{answer}");
    let with_data = format!("\"data\":{exact}");
    assert!(answer.contains(&with_data), "the answer: {answer}");
    // The stored envelope is what is posted and signed: the digits arrive as sent.
    let queued = take_queue(&s);
    assert_eq!(consume(&app, &s, &queued[0]), Disposition::Ack);
    let posts = s.posts.borrow();
    let delivered = String::from_utf8_lossy(&posts[0].body).to_string();
    assert!(delivered.contains(&with_data), "delivered: {delivered}");
    assert!(delivered.starts_with("{\"id\":\"evt_"), "{delivered}");
    drop(posts);

    // A retry with the same key and the same text (spaced differently) is the same event; a
    // different last digit is a different event, though a float would not tell them apart.
    let again = publish_text(&app, &s, &body.replace(", ", ","), Some("exact-1"));
    assert_eq!(again.status, 202);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let other = body.replace("567890,", "567891,");
    assert_ne!(other, body);
    assert_eq!(publish_text(&app, &s, &other, Some("exact-1")).status, 409);

    // A number beyond a 64-bit float, a lone surrogate or nesting deeper than 128 levels is
    // JSON radref cannot read back: refused by name, not silently changed.
    for data in [
        "{\"n\": 1e400}".to_string(),
        "{\"n\": -1e400}".to_string(),
        "{\"s\": \"\\ud800\"}".to_string(),
        format!("{{\"deep\": {}{}}}", "[".repeat(200), "]".repeat(200)),
    ] {
        let r = publish_text(
            &app,
            &s,
            &format!("{{\"type\": \"report.created\", \"data\": {data}}}"),
            None,
        );
        let err: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(r.status, 422, "{data}: {err}");
        assert_eq!(err["error"]["details"]["field"], "data", "{data}: {err}");
    }
}

#[test]
fn a_rotated_secret_signs_beside_the_old_one_for_the_overlap_then_alone() {
    let (app, s) = (app(), sqlite());
    let id = subscribe(&app, &s, ALICE, &["report.finalized"]);
    let rotate = |body: Option<Value>| {
        call(
            &app,
            &s,
            ALICE,
            Method::Post,
            &format!("/api/v1/webhooks/{id}/rotate"),
            body,
        )
    };
    let (status, body) = rotate(Some(json!({ "overlap_hours": 2 })));
    assert_eq!(status, 200, "{body}");
    let new = body["secret"].as_str().unwrap().to_string();
    assert!(
        new.len() == 48 && new.bytes().all(|b| b.is_ascii_hexdigit()),
        "{new}"
    );
    assert!(body["data"]["previous_secret_expires_at"].is_string());
    // The secret is shown once: the subscription never shows it again.
    let (_, shown) = call(
        &app,
        &s,
        ALICE,
        Method::Get,
        &format!("/api/v1/webhooks/{id}"),
        None,
    );
    assert!(!shown.to_string().contains(&new));
    let deliver = || {
        publish(&app, &s, ALICE, "report.finalized");
        let message = take_queue(&s).remove(0);
        assert_eq!(consume(&app, &s, &message), Disposition::Ack);
        s.posts.borrow().last().unwrap().clone()
    };
    // Within the overlap: one signature per secret, the new one first; either verifies.
    let post = deliver();
    let id_header = header(&post, "webhook-id").to_string();
    let ts: u64 = header(&post, "webhook-timestamp").parse().unwrap();
    let sigs: Vec<&str> = header(&post, "webhook-signature").split(' ').collect();
    assert_eq!(
        sigs,
        [
            crate::webhooks::standard_signature(new.as_bytes(), &id_header, ts, &post.body),
            crate::webhooks::standard_signature(SECRET.as_bytes(), &id_header, ts, &post.body)
        ]
    );
    for secret in [new.as_str(), SECRET] {
        assert!(crate::webhooks::verify_signature(
            secret.as_bytes(),
            &post.body,
            header(&post, "x-radref-signature")
        ));
    }
    // After the overlap only the new secret signs.
    s.advance(2 * 3_600_000 + 1);
    let post = deliver();
    let sigs: Vec<&str> = header(&post, "webhook-signature").split(' ').collect();
    assert_eq!(sigs.len(), 1);
    assert!(!crate::webhooks::verify_signature(
        SECRET.as_bytes(),
        &post.body,
        header(&post, "x-radref-signature")
    ));
    assert!(crate::webhooks::verify_signature(
        new.as_bytes(),
        &post.body,
        header(&post, "x-radref-signature")
    ));
    // overlap_hours 0 ends the old secret at once; a bad overlap is named; another user's
    // webhook cannot be rotated.
    let (status, body) = rotate(Some(json!({ "overlap_hours": 0 })));
    assert_eq!(status, 200);
    assert!(body["data"]["previous_secret_expires_at"].is_null());
    let (status, body) = rotate(Some(json!({ "overlap_hours": 500 })));
    assert_eq!(status, 422, "{body}");
    assert!(body.to_string().contains("overlap_hours"));
    let (status, _) = call(
        &app,
        &s,
        BOB,
        Method::Post,
        &format!("/api/v1/webhooks/{id}/rotate"),
        None,
    );
    assert_eq!(status, 403);
}

#[test]
fn the_event_catalog_is_open_and_declares_what_publishing_checks() {
    let (app, s) = (app(), sqlite());
    let response = block_on(handle(
        &app,
        &s,
        Request::new(Method::Get, "/api/v1/webhooks/event-types"),
    ));
    assert_eq!(response.status, 200, "no key needed");
    let catalog: Value = serde_json::from_slice(&response.body).unwrap();
    let types: Vec<&str> = catalog["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, crate::webhooks::EVENT_TYPES);
    let finalized = catalog["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "report.finalized")
        .unwrap();
    assert_eq!(
        finalized["schema"]["properties"]["data"]["required"],
        json!(["report_id", "exam_type", "status", "has_critical_finding"])
    );
    assert_eq!(
        finalized["schema"]["properties"]["data"]["properties"]["has_critical_finding"]["type"],
        "boolean"
    );
    // The example publishes; without a required field it is refused by name.
    let mut data = finalized["example"]["data"].clone();
    let (status, _) = call(
        &app,
        &s,
        ALICE,
        Method::Post,
        "/api/v1/events",
        Some(json!({ "type": "report.finalized", "data": data.clone() })),
    );
    assert_eq!(status, 202);
    data.as_object_mut().unwrap().remove("has_critical_finding");
    let (status, body) = call(
        &app,
        &s,
        ALICE,
        Method::Post,
        "/api/v1/events",
        Some(json!({ "type": "report.finalized", "data": data })),
    );
    assert_eq!(status, 422);
    assert!(
        body.to_string().contains("data.has_critical_finding"),
        "{body}"
    );
}
