//! Report templates over HTTP, as two users: CRUD, filters, errors, voice commands, safety.

use crate::support::{send, unique};
use serde_json::{json, Value};

/// Keys loaded by `make test` from tests/fixtures/keys.sql (scope: templates).
const ALICE: &str = "rr_tplalice_templatesKeyAliceIntegration01";
const BOB: &str = "rr_tplbob01_templatesKeyBobIntegration0001";
const CAROL: &str = "rr_tplrate1_templatesKeyRateLimitIntegr01";
const CONTEXT_ONLY: &str = "rr_testctx1_contextKeyForIntegrationTests1";

fn call(key: &str, method: &str, path: &str, body: Option<Value>) -> crate::support::Reply {
    let auth = format!("Bearer {key}");
    let bytes = body.map(|b| b.to_string().into_bytes());
    send(
        method,
        path,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        bytes.as_deref(),
    )
}

fn create(key: &str, body: Value) -> Value {
    let reply = call(key, "POST", "/api/v1/templates", Some(body));
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.json()["data"].clone()
}

fn error_code(reply: &crate::support::Reply) -> String {
    reply.json()["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn full_round_trip() {
    let name = unique("CT chest");
    let created = call(
        ALICE,
        "POST",
        "/api/v1/templates",
        Some(json!({
            "name": name, "content": "<h2>FINDINGS</h2><p>Lungs: clear.</p>",
            "exam_type": "CT", "modality": "CT", "category": "chest", "tags": ["chest", "routine"],
            "voice_command": unique("normal chest"), "is_favorite": true
        })),
    );
    assert_eq!(created.status, 201);
    assert!(created
        .header("location")
        .unwrap()
        .starts_with("/api/v1/templates/tpl_"));
    assert!(created.header("x-ratelimit-remaining").is_some());
    let t = created.json()["data"].clone();
    let id = t["id"].as_str().unwrap().to_string();
    assert!(id.len() >= 36, "opaque, unguessable id: {id}");
    assert_eq!(t["usage_count"], 0);
    assert_eq!(t["content_text"], "FINDINGS\nLungs: clear.");
    assert_eq!(t["created_by"], "tpl-alice");
    assert!(t["created_at"].as_str().unwrap().ends_with('Z'));

    let got = call(ALICE, "GET", &format!("/api/v1/templates/{id}"), None);
    assert_eq!(got.status, 200);
    assert_eq!(got.json()["data"]["name"], name.as_str());

    let updated = call(
        ALICE,
        "PUT",
        &format!("/api/v1/templates/{id}"),
        Some(json!({"category": "thorax", "is_favorite": false})),
    );
    assert_eq!(updated.status, 200, "{}", updated.body);
    let u = updated.json()["data"].clone();
    assert_eq!(u["category"], "thorax");
    assert_eq!(u["is_favorite"], false);
    assert_eq!(u["name"], name.as_str(), "fields not sent are kept");
    assert_eq!(u["tags"], json!(["chest", "routine"]));

    let used = call(ALICE, "POST", &format!("/api/v1/templates/{id}/use"), None);
    assert_eq!(used.status, 200);
    assert_eq!(used.json()["data"]["usage_count"], 1);
    assert!(used.json()["data"]["last_used_at"].is_string());

    let deleted = call(ALICE, "DELETE", &format!("/api/v1/templates/{id}"), None);
    assert_eq!(deleted.status, 204);
    assert!(deleted.body.is_empty());
    let gone = call(ALICE, "GET", &format!("/api/v1/templates/{id}"), None);
    assert_eq!(gone.status, 404);
    assert_eq!(error_code(&gone), "not_found");
}

#[test]
fn another_users_template_is_forbidden() {
    let private = create(
        ALICE,
        json!({"name": unique("private"), "content": "<p>x</p>"}),
    );
    let public = create(
        ALICE,
        json!({"name": unique("shared"), "content": "<p>y</p>", "is_public": true}),
    );
    let (p, s) = (
        private["id"].as_str().unwrap(),
        public["id"].as_str().unwrap(),
    );
    for (method, path, body) in [
        ("GET", format!("/api/v1/templates/{p}"), None),
        (
            "PUT",
            format!("/api/v1/templates/{p}"),
            Some(json!({"name": "stolen"})),
        ),
        ("DELETE", format!("/api/v1/templates/{p}"), None),
        (
            "PUT",
            format!("/api/v1/templates/{s}"),
            Some(json!({"name": "stolen"})),
        ),
        ("DELETE", format!("/api/v1/templates/{s}"), None),
        ("POST", format!("/api/v1/templates/{s}/use"), None),
    ] {
        let reply = call(BOB, method, &path, body);
        assert_eq!(reply.status, 403, "{method} {path}");
        assert_eq!(error_code(&reply), "forbidden");
        assert!(reply.json()["error"]["details"].is_object());
    }
    assert_eq!(
        call(BOB, "GET", &format!("/api/v1/templates/{s}"), None).status,
        200,
        "public is readable"
    );
    let still = call(ALICE, "GET", &format!("/api/v1/templates/{p}"), None);
    assert_eq!(still.json()["data"]["name"], private["name"]);
    let mine = call(BOB, "GET", "/api/v1/templates?limit=100", None).json();
    assert!(mine["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["created_by"] == "tpl-bob"));
    let public_list = call(BOB, "GET", "/api/v1/templates?scope=public&limit=100", None).json();
    assert!(public_list["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["id"] == s));
    assert!(public_list["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["is_public"] == true));
}

#[test]
fn keys_are_required_and_scoped() {
    let none = send("GET", "/api/v1/templates", &[], None);
    assert_eq!(none.status, 401);
    assert_eq!(none.json()["error"]["code"], "unauthorized");
    let bad = call(
        "rr_nobody01_notARealKeyButWellFormed000",
        "GET",
        "/api/v1/templates",
        None,
    );
    assert_eq!(bad.status, 401);
    let wrong_scope = call(CONTEXT_ONLY, "GET", "/api/v1/templates", None);
    assert_eq!(wrong_scope.status, 403);
    let unknown = call(
        ALICE,
        "GET",
        "/api/v1/templates/tpl_00000000000000000000000000000000",
        None,
    );
    assert_eq!(unknown.status, 404);
}

#[test]
fn validation_and_malformed_bodies() {
    for (body, field) in [
        (json!({"content": "<p>x</p>"}), "name"),
        (json!({"name": "x"}), "content"),
        (json!({"name": "n".repeat(101), "content": "x"}), "name"),
        (
            json!({"name": "x", "content": "x", "tags": "chest"}),
            "tags",
        ),
        (
            json!({"name": "x", "content": "x", "voice_aliases": [""]}),
            "voice_aliases",
        ),
        (
            json!({"name": "x", "content": "x", "is_public": "yes"}),
            "is_public",
        ),
        (
            json!({"name": "x", "content": "x", "usage_count": 99}),
            "usage_count",
        ),
        (json!({"name": "x", "content": "x", "id": "tpl_mine"}), "id"),
        (
            json!({"name": "x", "content": "x", "colour": "red"}),
            "colour",
        ),
    ] {
        let reply = call(ALICE, "POST", "/api/v1/templates", Some(body.clone()));
        assert_eq!(reply.status, 422, "{body}");
        let e = reply.json();
        assert_eq!(e["error"]["code"], "validation_error");
        assert_eq!(e["error"]["details"]["field"], field, "{body}");
    }
    let auth = format!("Bearer {ALICE}");
    let malformed = send(
        "POST",
        "/api/v1/templates",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        Some(b"{\"name\": "),
    );
    assert_eq!(malformed.status, 400);
    assert_eq!(error_code(&malformed), "bad_request");
    let wrong_type = send(
        "POST",
        "/api/v1/templates",
        &[("Authorization", &auth), ("Content-Type", "text/plain")],
        Some(b"{}"),
    );
    assert_eq!(wrong_type.status, 400);
    for query in [
        "limit=0",
        "limit=101",
        "offset=-1",
        "sort=colour",
        "order=up",
        "favorites_only=maybe",
        "scope=everyone",
    ] {
        let reply = call(ALICE, "GET", &format!("/api/v1/templates?{query}"), None);
        assert_eq!(reply.status, 422, "{query}");
        assert!(reply.json()["error"]["details"]["field"].is_string());
    }
}

#[test]
fn voice_commands_are_unique_per_user_after_normalisation() {
    let command = unique("Normal Abdomen");
    let first = create(
        ALICE,
        json!({"name": unique("abd"), "content": "<p>a</p>", "voice_command": command, "voice_aliases": [format!("{command} alias")]}),
    );
    for clash in [
        json!({"voice_command": command.to_uppercase()}),
        json!({"voice_command": format!("  {}!! ", command.replace(' ', "   "))}),
        json!({"voice_aliases": [command.clone()]}),
        json!({"voice_command": format!("{command} alias")}),
    ] {
        let mut body = json!({"name": unique("dup"), "content": "<p>b</p>"});
        body.as_object_mut()
            .unwrap()
            .extend(clash.as_object().unwrap().clone());
        let reply = call(ALICE, "POST", "/api/v1/templates", Some(body.clone()));
        assert_eq!(reply.status, 409, "{body}: {}", reply.body);
        let e = reply.json();
        assert_eq!(e["error"]["code"], "conflict");
        assert_eq!(e["error"]["details"]["field"], "voice_command");
        assert_eq!(e["error"]["details"]["existing_template_id"], first["id"]);
    }
    // Another user may use the same words; nothing of Alice's leaks to Bob.
    let bobs = call(
        BOB,
        "POST",
        "/api/v1/templates",
        Some(json!({"name": unique("bob"), "content": "<p>c</p>", "voice_command": command})),
    );
    assert_eq!(bobs.status, 201, "{}", bobs.body);
    // The resolver finds the caller's own template by any spelling of a phrase.
    let spoken = format!(
        "/api/v1/templates/voice?command={}",
        command.to_lowercase().replace(' ', "+")
    );
    let found = call(ALICE, "GET", &spoken, None);
    assert_eq!(found.status, 200);
    assert_eq!(found.json()["data"]["id"], first["id"]);
    let found_bob = call(BOB, "GET", &spoken, None);
    assert_eq!(found_bob.json()["data"]["id"], bobs.json()["data"]["id"]);
    assert_eq!(
        call(
            ALICE,
            "GET",
            "/api/v1/templates/voice?command=no+such+phrase+ever",
            None
        )
        .status,
        404
    );
    // A template may keep its own phrase on update.
    let same = call(
        ALICE,
        "PUT",
        &format!("/api/v1/templates/{}", first["id"].as_str().unwrap()),
        Some(json!({"voice_command": command})),
    );
    assert_eq!(same.status, 200, "{}", same.body);
}

#[test]
fn concurrent_creates_of_one_command_let_exactly_one_win() {
    let command = unique("race command");
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let command = command.clone();
            std::thread::spawn(move || {
                call(ALICE, "POST", "/api/v1/templates", Some(json!({"name": format!("race {i}"), "content": "<p>r</p>", "voice_command": command}))).status
            })
        })
        .collect();
    let mut statuses: Vec<u16> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    statuses.sort();
    assert_eq!(statuses, vec![201, 409, 409, 409]);
}

#[test]
fn content_is_sanitised_and_rendered_as_text() {
    let t = create(
        ALICE,
        json!({
            "name": unique("xss"),
            "content": "<p onclick=\"steal()\">Liver: normal&nbsp;size &amp; contour.</p><script>alert(1)</script><img src=x onerror=alert(1)><a href=\"javascript:alert(1)\">link</a><ul><li>One</li><li>Two</li></ul>"
        }),
    );
    let content = t["content"].as_str().unwrap().to_lowercase();
    for bad in ["<script", "onclick", "onerror", "javascript:", "<img", "<a"] {
        assert!(!content.contains(bad), "{bad} survived: {content}");
    }
    assert_eq!(
        t["content_text"],
        "Liver: normal size & contour.\nlink\nOne\nTwo"
    );
}

#[test]
fn list_filters_sorts_and_paginates() {
    let tag = unique("tag").replace(' ', "-");
    let mut ids = Vec::new();
    for (i, (name, modality, fav)) in [
        ("Alpha MR knee", "MR", true),
        ("Beta CT head", "CT", false),
        ("Gamma CT chest", "CT", true),
    ]
    .iter()
    .enumerate()
    {
        let t = create(
            ALICE,
            json!({"name": format!("{name} {tag}"), "content": format!("<p>body {i} {tag}</p>"), "modality": modality, "tags": [tag.clone(), format!("n{i}")], "is_favorite": fav}),
        );
        ids.push(t["id"].as_str().unwrap().to_string());
    }
    let list = |q: &str| {
        call(
            ALICE,
            "GET",
            &format!("/api/v1/templates?tags={tag}&{q}"),
            None,
        )
        .json()
    };
    let all = list("sort=name&order=asc");
    assert_eq!(all["meta"]["total"], 3);
    let names: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names[0].starts_with("Alpha") && names[2].starts_with("Gamma"),
        "{names:?}"
    );
    let desc = list("sort=name&order=desc");
    assert!(desc["data"][0]["name"]
        .as_str()
        .unwrap()
        .starts_with("Gamma"));
    assert_eq!(list("modality=ct")["meta"]["total"], 2);
    assert_eq!(list("favorites_only=true")["meta"]["total"], 2);
    let both = call(
        ALICE,
        "GET",
        &format!("/api/v1/templates?tags={tag},n1"),
        None,
    )
    .json();
    assert_eq!(both["meta"]["total"], 1, "all tags must match");
    assert_eq!(list("search=CHEST")["meta"]["total"], 1);
    assert_eq!(
        list("search=body+2")["meta"]["total"],
        1,
        "content_text is searched"
    );
    // A long search (D1 refuses LIKE patterns over 50 bytes) is an ordinary search, and
    // LIKE's wildcards are plain characters.
    let long = "%C3%9E".repeat(40) + "chest";
    assert_eq!(list(&format!("search={long}"))["meta"]["total"], 0);
    assert_eq!(
        list("search=b_dy")["meta"]["total"],
        0,
        "_ is not a wildcard"
    );
    assert_eq!(
        list("search=%25")["meta"]["total"],
        0,
        "% is not a wildcard"
    );
    let page = list("sort=name&order=asc&limit=2&offset=0");
    assert_eq!(page["data"].as_array().unwrap().len(), 2);
    assert_eq!(
        page["meta"],
        json!({"total": 3, "limit": 2, "offset": 0, "has_more": true})
    );
    let last = list("sort=name&order=asc&limit=2&offset=2");
    assert_eq!(last["data"].as_array().unwrap().len(), 1);
    assert_eq!(last["meta"]["has_more"], false);
    let past = list("limit=2&offset=10");
    assert_eq!(past["data"].as_array().unwrap().len(), 0);
    assert_eq!(past["meta"]["has_more"], false);
    call(
        ALICE,
        "POST",
        &format!("/api/v1/templates/{}/use", ids[1]),
        None,
    );
    assert_eq!(
        list("sort=usage_count")["data"][0]["id"],
        ids[1].as_str(),
        "default order: most used first"
    );
}

#[test]
fn rate_limit_per_key() {
    // `make test` runs the worker with KEY_RATE_LIMIT=1500 per 600 s; Carol's key is spent here only.
    let mut last = call(CAROL, "GET", "/api/v1/templates?limit=1", None);
    assert_eq!(last.status, 200);
    // Windows are fixed: when this one is about to end, start in the next so it cannot reset
    // half-way through the loop.
    let reset: u64 = last.header("x-ratelimit-reset").unwrap().parse().unwrap();
    if reset < 60 {
        std::thread::sleep(std::time::Duration::from_secs(reset + 1));
        last = call(CAROL, "GET", "/api/v1/templates?limit=1", None);
    }
    let limit: u32 = last.header("x-ratelimit-limit").unwrap().parse().unwrap();
    for _ in 0..limit {
        last = call(CAROL, "GET", "/api/v1/templates?limit=1", None);
        if last.status == 429 {
            break;
        }
    }
    assert_eq!(last.status, 429);
    assert_eq!(error_code(&last), "rate_limited");
    assert!(last.header("retry-after").is_some());
    assert_eq!(last.header("x-ratelimit-remaining"), Some("0"));
    assert_eq!(
        call(BOB, "GET", "/api/v1/templates?limit=1", None).status,
        200,
        "other keys unaffected"
    );
}

#[test]
fn a_public_view_shows_other_users_only_what_a_reader_needs() {
    let tag = unique("privacy").replace(' ', "-");
    let alices = create(
        ALICE,
        json!({
            "name": unique("Alice public"), "content": "<p>shared text</p>", "tags": [tag.clone()],
            "is_public": true, "is_favorite": true,
            "voice_command": unique("alice private phrase"), "voice_aliases": [unique("alice alias")]
        }),
    );
    let id = alices["id"].as_str().unwrap().to_string();
    let used = call(ALICE, "POST", &format!("/api/v1/templates/{id}/use"), None);
    assert_eq!(used.status, 200);
    let owner_only = [
        "voice_command",
        "voice_aliases",
        "is_favorite",
        "usage_count",
        "last_used_at",
        "created_by",
    ];
    let hidden = |t: &Value| {
        assert_eq!(t["owned"], false, "{t}");
        for key in owner_only {
            assert!(t.get(key).is_none(), "{key} leaked: {t}");
        }
        assert_eq!(t["content_text"], "shared text");
        assert!(!t.to_string().contains("tpl-alice"), "the owner's id: {t}");
    };
    // One template, and the public list, as Bob sees them.
    let got = call(BOB, "GET", &format!("/api/v1/templates/{id}"), None);
    assert_eq!(got.status, 200);
    hidden(&got.json()["data"]);
    let list = call(
        BOB,
        "GET",
        &format!("/api/v1/templates?scope=public&tags={tag}"),
        None,
    )
    .json();
    assert_eq!(list["meta"]["total"], 1, "{list}");
    hidden(&list["data"][0]);
    // Alice's favourite is not Bob's.
    let favs = call(
        BOB,
        "GET",
        &format!("/api/v1/templates?scope=public&favorites_only=true&tags={tag}"),
        None,
    )
    .json();
    assert_eq!(favs["meta"]["total"], 0, "{favs}");
    // Alice still sees all of it, in the public list too.
    let own = call(
        ALICE,
        "GET",
        &format!("/api/v1/templates?scope=public&favorites_only=true&tags={tag}"),
        None,
    )
    .json();
    let t = &own["data"][0];
    assert_eq!(
        (t["owned"].clone(), t["usage_count"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(t["created_by"], "tpl-alice");
    assert_eq!(t["voice_command"], alices["voice_command"]);
}
