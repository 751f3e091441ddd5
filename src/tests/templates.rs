//! The template routes through the whole app function on SQLite (the engine under D1, with
//! `migrations/`): ownership, voice-command uniqueness, partial updates, list filters and
//! paging, and the refusals that name their field. The same routes run over HTTP against D1
//! in `tests/templates.rs`.

use crate::app::handle;
use crate::config::Config;
use crate::host::block_on;
use crate::host::sqlite::Sqlite;
use crate::http::{Method, Request};
use crate::services::App;
use serde_json::{json, Value};

const ALICE: &str = "rr_alicetpl1_aliceTemplatesKeyForTests01";
const BOB: &str = "rr_bobtpl001_bobTemplatesKeyForTests0001";

fn services() -> Sqlite {
    Sqlite::new()
        .with_key(ALICE, "alice", "templates")
        .with_key(BOB, "bob", "templates")
}

fn call(s: &Sqlite, key: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request =
        Request::new(method, path).with_header("authorization", &format!("Bearer {key}"));
    if let Some(body) = body {
        request = request
            .with_header("content-type", "application/json")
            .with_body(body.to_string());
    }
    let r = block_on(handle(&App::new(Config::default()), s, request));
    let body = if r.body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&r.body).unwrap()
    };
    (r.status, body)
}

fn create(s: &Sqlite, key: &str, body: Value) -> String {
    let (status, created) = call(s, key, Method::Post, "/api/v1/templates", Some(body));
    assert_eq!(status, 201, "{created}");
    created["data"]["id"].as_str().unwrap().to_string()
}

fn field(body: &Value) -> &str {
    body["error"]["details"]["field"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn create_sanitises_and_the_owner_alone_may_change_it() {
    let s = services();
    let (status, body) = call(
        &s,
        ALICE,
        Method::Post,
        "/api/v1/templates",
        Some(
            json!({ "name": "CT chest", "content": "<p>Lungs: clear.</p><script>x()</script>", "voice_command": "Normal chest!" }),
        ),
    );
    assert_eq!(status, 201);
    let t = &body["data"];
    assert_eq!(t["content"], "<p>Lungs: clear.</p>");
    assert_eq!(t["content_text"], "Lungs: clear.");
    assert_eq!(t["usage_count"], 0);
    let path = format!("/api/v1/templates/{}", t["id"].as_str().unwrap());
    // Private: Bob can neither read nor change it.
    assert_eq!(call(&s, BOB, Method::Get, &path, None).0, 403);
    let change = json!({ "name": "mine now" });
    assert_eq!(
        call(&s, BOB, Method::Put, &path, Some(change.clone())).0,
        403
    );
    assert_eq!(call(&s, BOB, Method::Delete, &path, None).0, 403);
    // Public: Bob may read it, still not change it.
    let (status, _) = call(
        &s,
        ALICE,
        Method::Put,
        &path,
        Some(json!({ "is_public": true })),
    );
    assert_eq!(status, 200);
    assert_eq!(call(&s, BOB, Method::Get, &path, None).0, 200);
    assert_eq!(call(&s, BOB, Method::Put, &path, Some(change)).0, 403);
    // A partial update changes only what it names.
    let (_, updated) = call(
        &s,
        ALICE,
        Method::Put,
        &path,
        Some(json!({ "name": "CT chest v2" })),
    );
    assert_eq!(updated["data"]["name"], "CT chest v2");
    assert_eq!(updated["data"]["content"], "<p>Lungs: clear.</p>");
    assert_eq!(updated["data"]["voice_command"], "Normal chest!");
}

#[test]
fn voice_commands_are_unique_per_user_and_resolve_normalised() {
    let s = services();
    let first = create(
        &s,
        ALICE,
        json!({ "name": "a", "content": "x", "voice_command": "normal chest", "voice_aliases": ["chest ok"] }),
    );
    // Another template of Alice's may not take the phrase in any spelling, nor as an alias.
    for body in [
        json!({ "name": "b", "content": "x", "voice_command": "Normal  Chest." }),
        json!({ "name": "b", "content": "x", "voice_aliases": ["CHEST OK"] }),
    ] {
        let (status, err) = call(&s, ALICE, Method::Post, "/api/v1/templates", Some(body));
        assert_eq!(status, 409, "{err}");
        assert_eq!(field(&err), "voice_command");
        assert_eq!(
            err["error"]["details"]["existing_template_id"],
            first.as_str()
        );
    }
    assert_eq!(
        s.scalar("SELECT COUNT(*) FROM templates"),
        1,
        "nothing half-written"
    );
    // Bob may use the same phrase for his own.
    create(
        &s,
        BOB,
        json!({ "name": "b", "content": "x", "voice_command": "normal chest" }),
    );
    let (status, found) = call(
        &s,
        ALICE,
        Method::Get,
        "/api/v1/templates/voice?command=Chest-OK",
        None,
    );
    assert_eq!(status, 200);
    assert_eq!(found["data"]["id"], first.as_str());
    let (status, err) = call(
        &s,
        ALICE,
        Method::Get,
        "/api/v1/templates/voice?command=nothing+here",
        None,
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    // Deleting the template frees its phrases.
    let path = format!("/api/v1/templates/{first}");
    assert_eq!(call(&s, ALICE, Method::Delete, &path, None).0, 204);
    assert_eq!(call(&s, ALICE, Method::Get, &path, None).0, 404);
    create(
        &s,
        ALICE,
        json!({ "name": "c", "content": "x", "voice_command": "normal chest" }),
    );
}

#[test]
fn lists_filter_sort_and_page() {
    let s = services();
    for (name, tags, favorite) in [
        ("CT chest", json!(["chest", "ct"]), true),
        ("CT abdomen", json!(["abdomen", "ct"]), false),
        ("MR brain", json!(["brain"]), false),
    ] {
        create(
            &s,
            ALICE,
            json!({ "name": name, "content": format!("<p>{name} normal</p>"), "tags": tags, "is_favorite": favorite }),
        );
    }
    create(
        &s,
        BOB,
        json!({ "name": "Bob's CT", "content": "x", "tags": ["ct"] }),
    );
    let names = |query: &str| -> Vec<String> {
        let (status, body) = call(
            &s,
            ALICE,
            Method::Get,
            &format!("/api/v1/templates?{query}"),
            None,
        );
        assert_eq!(status, 200, "{query}: {body}");
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names("sort=name&order=asc"),
        ["CT abdomen", "CT chest", "MR brain"]
    );
    assert_eq!(names("tags=CT,chest"), ["CT chest"]);
    assert_eq!(names("search=ABDOMEN&sort=name"), ["CT abdomen"]);
    assert_eq!(names("favorites_only=true"), ["CT chest"]);
    let (_, page) = call(
        &s,
        ALICE,
        Method::Get,
        "/api/v1/templates?sort=name&order=asc&limit=2&offset=1",
        None,
    );
    assert_eq!(
        page["meta"],
        json!({ "total": 3, "limit": 2, "offset": 1, "has_more": false })
    );
    assert_eq!(page["data"][0]["name"], "CT chest");
    for (query, name) in [
        ("limit=0", "limit"),
        ("offset=-1", "offset"),
        ("sort=colour", "sort"),
        ("order=up", "order"),
        ("favorites_only=maybe", "favorites_only"),
        ("scope=everyone", "scope"),
    ] {
        let (status, err) = call(
            &s,
            ALICE,
            Method::Get,
            &format!("/api/v1/templates?{query}"),
            None,
        );
        assert_eq!((status, field(&err)), (422, name), "{query}");
    }
    // Too many tags would make the filter deeper than D1 evaluates: refused by name.
    let many: Vec<String> = (0..=crate::templates::MAX_FILTER_TAGS)
        .map(|i| format!("t{i}"))
        .collect();
    let (status, err) = call(
        &s,
        ALICE,
        Method::Get,
        &format!("/api/v1/templates?tags={}", many.join(",")),
        None,
    );
    assert_eq!((status, field(&err)), (422, "tags"));
}

#[test]
fn bodies_are_refused_by_field_and_uses_are_counted() {
    let s = services();
    for (body, name) in [
        (
            json!({ "name": "x", "content": "x", "usage_count": 9 }),
            "usage_count",
        ),
        (
            json!({ "name": "x", "content": "x", "colour": "red" }),
            "colour",
        ),
        (json!({ "content": "x" }), "name"),
        (json!({ "name": "x", "content": " " }), "content"),
    ] {
        let (status, err) = call(&s, ALICE, Method::Post, "/api/v1/templates", Some(body));
        assert_eq!((status, field(&err)), (422, name));
    }
    let id = create(&s, ALICE, json!({ "name": "x", "content": "x" }));
    let path = format!("/api/v1/templates/{id}/use");
    call(&s, ALICE, Method::Post, &path, None);
    let (status, used) = call(&s, ALICE, Method::Post, &path, None);
    assert_eq!(status, 200);
    assert_eq!(used["data"]["usage_count"], 2);
    assert!(used["data"]["last_used_at"].is_string());
    assert_eq!(call(&s, BOB, Method::Post, &path, None).0, 403);
}

/// The fields only a template's owner sees: how they dictate, what they favour and use, who
/// they are.
const OWNER_ONLY: [&str; 6] = [
    "voice_command",
    "voice_aliases",
    "is_favorite",
    "usage_count",
    "last_used_at",
    "created_by",
];

#[test]
fn a_public_view_of_another_users_template_hides_what_is_the_owners() {
    let s = services();
    let shared = create(
        &s,
        ALICE,
        json!({ "name": "Alice shared", "content": "<p>shared</p>", "tags": ["chest"], "is_public": true,
                "is_favorite": true, "voice_command": "alice secret phrase", "voice_aliases": ["alice alias"] }),
    );
    for _ in 0..3 {
        let (status, _) = call(
            &s,
            ALICE,
            Method::Post,
            &format!("/api/v1/templates/{shared}/use"),
            None,
        );
        assert_eq!(status, 200);
    }
    let bobs = create(
        &s,
        BOB,
        json!({ "name": "Bob shared", "content": "<p>bob</p>", "is_public": true, "voice_command": "bob phrase" }),
    );
    let public_view = |t: &Value| {
        for key in OWNER_ONLY {
            assert!(t.get(key).is_none(), "{key} leaked in {t}");
        }
        assert_eq!(t["owned"], false, "{t}");
        for key in ["id", "name", "content", "content_text", "tags", "is_public"] {
            assert!(t.get(key).is_some(), "{key} missing from {t}");
        }
    };
    let owner_view = |t: &Value| {
        for key in OWNER_ONLY {
            assert!(t.get(key).is_some(), "{key} missing from the owner's {t}");
        }
        assert_eq!(t["owned"], true, "{t}");
    };

    // One template, read by someone else.
    let (status, got) = call(
        &s,
        BOB,
        Method::Get,
        &format!("/api/v1/templates/{shared}"),
        None,
    );
    assert_eq!(status, 200);
    public_view(&got["data"]);
    assert_eq!(got["data"]["name"], "Alice shared");
    // The same template, read by its owner.
    let (_, own) = call(
        &s,
        ALICE,
        Method::Get,
        &format!("/api/v1/templates/{shared}"),
        None,
    );
    owner_view(&own["data"]);
    assert_eq!(own["data"]["usage_count"], 3);

    // The public list: Bob's own template in full, Alice's in the public view.
    let (status, list) = call(
        &s,
        BOB,
        Method::Get,
        "/api/v1/templates?scope=public&sort=name&order=asc",
        None,
    );
    assert_eq!(status, 200, "{list}");
    let items = list["data"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    public_view(&items[0]);
    assert_eq!(items[0]["id"], shared.as_str());
    owner_view(&items[1]);
    assert_eq!(items[1]["id"], bobs.as_str());

    // favorites_only means the caller's own favourites: Alice's favourite is not Bob's.
    let (_, favs) = call(
        &s,
        BOB,
        Method::Get,
        "/api/v1/templates?scope=public&favorites_only=true",
        None,
    );
    assert_eq!(favs["meta"]["total"], 0, "{favs}");
    let (_, favs) = call(
        &s,
        ALICE,
        Method::Get,
        "/api/v1/templates?scope=public&favorites_only=true",
        None,
    );
    assert_eq!(favs["data"][0]["id"], shared.as_str());

    // Sorting by use ranks only the caller's own uses: others' templates count as unused, so
    // the order says nothing about how much their owners use them. Bob's unused template and
    // Alice's thrice-used one tie at zero for Bob and fall back to the id.
    let order = |key: &str, query: &str| -> Vec<String> {
        let (_, body) = call(
            &s,
            key,
            Method::Get,
            &format!("/api/v1/templates?scope=public&{query}"),
            None,
        );
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect()
    };
    let mut by_id = vec![shared.clone(), bobs.clone()];
    by_id.sort();
    assert_eq!(order(BOB, "sort=usage_count&order=desc"), by_id);
    assert_eq!(order(BOB, "sort=usage_count&order=asc"), by_id);
    // Alice sees her own uses.
    assert_eq!(order(ALICE, "sort=usage_count&order=desc")[0], shared);
    assert_eq!(order(ALICE, "sort=usage_count&order=asc")[0], bobs);
}
