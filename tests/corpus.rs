//! The corpus read routes, from a client's side.

use crate::support::{get, published_slugs, send};
use serde_json::Value;

/// Every clinical line object in a JSON tree (an object with text and citation).
fn lines(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(map) => {
            if map.contains_key("text") && map.contains_key("citation") {
                out.push(v.clone());
            }
            for child in map.values() {
                lines(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| lines(i, out)),
        _ => {}
    }
}

#[test]
fn organs_have_counts_per_family() {
    let reply = get("/api/v1/organs");
    assert_eq!(reply.status, 200);
    let body = reply.json();
    let organs = body["data"].as_array().unwrap();
    let lung = organs.iter().find(|o| o["organ"] == "lung").expect("lung");
    assert!(lung["systems"].as_u64().unwrap() >= 2);
    let by_family: u64 = lung["by_family"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(by_family, lung["systems"].as_u64().unwrap());
}

#[test]
fn systems_list_is_stable_and_filters() {
    let all = get("/api/v1/systems").json();
    let slugs: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slug"].as_str().unwrap())
        .collect();
    let mut sorted = slugs.clone();
    sorted.sort();
    assert_eq!(slugs, sorted, "stable order by slug");
    // Every published slug is served, in the list and as a detail page.
    let published = published_slugs();
    // Slugs are never removed: the registry only grows (44 before the systems added since).
    assert!(published.len() >= 44);
    assert_eq!(
        slugs.len(),
        published.len(),
        "every system is published, and only those"
    );
    for slug in &published {
        assert!(slugs.contains(slug), "{slug} missing from the list");
        assert_eq!(
            get(&format!("/api/v1/systems/{slug}")).status,
            200,
            "{slug}"
        );
    }
    let item = &all["data"][0];
    for field in [
        "slug",
        "name",
        "family",
        "status",
        "organs",
        "modalities",
        "version",
        "currency",
    ] {
        assert!(!item[field].is_null(), "summary lacks {field}");
    }

    let lung = get("/api/v1/systems?organ=Lung&modality=ct").json();
    let data = lung["data"].as_array().unwrap();
    assert!(!data.is_empty());
    assert!(data
        .iter()
        .all(|s| s["organs"].as_array().unwrap().iter().any(|o| o == "lung")));

    let mr = get("/api/v1/systems?modality=MR").json();
    assert!(mr["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["modalities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "MRI")));
    assert_eq!(mr["meta"]["filters"]["modality"], "MRI");

    let retired = get("/api/v1/systems?status=retired").json();
    assert!(retired["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["slug"] == "acr-bi-rads-2013"));
    assert!(retired["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["status"] == "retired"));

    // A full-text query orders by relevance: the four thyroid systems lead.
    let q = get("/api/v1/systems?q=thyroid%20nodule").json();
    let top: Vec<&str> = q["data"].as_array().unwrap()[..4]
        .iter()
        .map(|s| s["slug"].as_str().unwrap())
        .collect();
    for slug in [
        "acr-ti-rads-2017",
        "eu-tirads-2017",
        "k-tirads-2021",
        "acr-if-thyroid-2015",
    ] {
        assert!(top.contains(&slug), "{slug} not in {top:?}");
    }
}

#[test]
fn systems_list_rejects_unknown_enum_values() {
    for (query, param) in [
        ("family=guideline", "family"),
        ("status=old", "status"),
        ("modality=SPECT", "modality"),
    ] {
        let reply = get(&format!("/api/v1/systems?{query}"));
        assert_eq!(reply.status, 400, "{query}");
        let msg = reply.json()["error"].as_str().unwrap().to_string();
        assert!(msg.contains(param) && msg.contains("allowed"), "{msg}");
    }
}

#[test]
fn system_detail_carries_cited_lines_and_notice() {
    let reply = get("/api/v1/systems/acr-ti-rads-2017");
    assert_eq!(reply.status, 200);
    let body = reply.json();
    assert!(body["notice"]
        .as_str()
        .unwrap()
        .contains("not a medical device"));
    for field in [
        "decision_units",
        "outcomes",
        "crossrefs",
        "references",
        "currency",
        "lineage",
    ] {
        assert!(!body[field].is_null(), "detail lacks {field}");
    }
    assert!(!body["decision_units"].as_array().unwrap().is_empty());
    let mut found = Vec::new();
    lines(&body, &mut found);
    assert!(found.len() > 20);
    for line in &found {
        for field in ["citation", "locator", "consensus", "verification"] {
            assert!(
                line[field].as_str().is_some_and(|v| !v.is_empty()),
                "line without {field}: {line}"
            );
        }
        let citation = line["citation"].as_str().unwrap();
        assert!(body["references"][citation].is_object(), "{citation}");
    }
}

#[test]
fn unknown_slug_is_404_with_suggestions() {
    let reply = get("/api/v1/systems/fleischner-2005");
    assert_eq!(reply.status, 404);
    let msg = reply.json()["error"].as_str().unwrap().to_string();
    assert!(
        msg.contains("fleischner-2005") && msg.contains("fleischner-2017"),
        "{msg}"
    );
}

#[test]
fn search_tolerates_typos_and_explains_hits() {
    for (q, slug) in [
        ("fleischer", "fleischner-2017"),
        ("bosniack", "bosniak-v2019"),
        ("tirads", "acr-ti-rads-2017"),
        ("lungrads%204B", "acr-lung-rads-v2022"),
    ] {
        let body = get(&format!("/api/v1/search?q={q}")).json();
        let hit = &body["data"][0];
        assert_eq!(hit["slug"], slug, "{q}: {body}");
        assert!(hit["score"].as_f64().unwrap() > 0.0);
        assert!(!hit["why"].as_array().unwrap().is_empty());
        assert!(hit["type"] == "system" || hit["type"] == "outcome");
    }
    let body = get("/api/v1/search?q=lungrads%204B").json();
    assert_eq!(body["data"][0]["type"], "outcome");
    assert_eq!(body["data"][0]["code"], "4B");
}

#[test]
fn search_validates_its_parameters() {
    for path in [
        "/api/v1/search",
        "/api/v1/search?q=",
        "/api/v1/search?q=%20%20",
        "/api/v1/search?q=lung&limit=0",
        "/api/v1/search?q=lung&limit=51",
        "/api/v1/search?q=lung&limit=ten",
    ] {
        let reply = get(path);
        assert_eq!(reply.status, 400, "{path}");
        assert!(reply.json()["error"].is_string());
    }
    let body = get("/api/v1/search?q=nodule&limit=2").json();
    assert!(body["data"].as_array().unwrap().len() <= 2);
}

#[test]
fn changes_are_newest_first_and_filter_by_date() {
    let body = get("/api/v1/changes").json();
    let events = body["data"].as_array().unwrap();
    assert!(!events.is_empty());
    let dates: Vec<&str> = events.iter().map(|e| e["date"].as_str().unwrap()).collect();
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    // Partial dates sort as their first day, so compare on the prefix order only.
    assert_eq!(dates.first(), sorted.first());
    let since = get("/api/v1/changes?since=2020-01-01&limit=500").json();
    assert!(since["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["date"].as_str().unwrap() >= "2020"));
    assert!(since["meta"]["total"].as_u64().unwrap() < body["meta"]["total"].as_u64().unwrap());
    assert_eq!(get("/api/v1/changes?since=yesterday").status, 400);
    // A well-formed day that the calendar does not have is refused too, naming the parameter.
    for impossible in ["2020-02-30", "2021-02-29", "1900-02-29", "2023-04-31"] {
        let reply = get(&format!("/api/v1/changes?since={impossible}"));
        assert_eq!(reply.status, 400, "{impossible}");
        let message = reply.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(message.contains("'since'"), "{impossible}: {message}");
    }
    assert_eq!(get("/api/v1/changes?since=2020-02-29").status, 200);
    assert_eq!(get("/api/v1/changes?limit=0").status, 400);
    let one = get("/api/v1/changes?limit=1").json();
    assert_eq!(one["data"].as_array().unwrap().len(), 1);
}

#[test]
fn rss_feed_is_rss() {
    let reply = get("/feed/changes.xml");
    assert_eq!(reply.status, 200);
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("application/rss+xml"));
    let body = &reply.body;
    assert!(body.starts_with("<?xml"));
    assert!(body.contains("<rss version=\"2.0\""));
    assert!(body.contains("rel=\"self\""));
    assert!(body.contains("<guid isPermaLink=\"false\">"));
    assert!(!body.contains("{{BASE}}"));
    assert!(body.contains("http://127.0.0.1:"), "absolute links");
    assert!(body.contains("+0000</pubDate>"));
}

#[test]
fn coverage_lists_covered_and_not_yet_covered() {
    let body = get("/api/v1/coverage").json();
    assert!(body["totals"]["systems"].as_u64().unwrap() >= 12);
    assert!(body["totals"]["counts"]["lines"].as_u64().unwrap() > 100);
    // A system the evaluator cannot be asked is named with the reasons from its gaps; every
    // other system has decision units.
    let covered = body["covered"].as_array().unwrap();
    let not_evaluable = body["not_evaluable"].as_array().unwrap();
    for n in not_evaluable {
        let slug = n["slug"].as_str().unwrap();
        let entry = covered.iter().find(|c| c["slug"] == slug).unwrap();
        assert_eq!(entry["counts"]["decision_units"], 0, "{slug}");
        assert!(!n["reasons"].as_array().unwrap().is_empty(), "{slug}");
    }
    let evaluable = covered
        .iter()
        .filter(|c| c["counts"]["decision_units"].as_u64().unwrap() > 0)
        .count();
    assert_eq!(evaluable + not_evaluable.len(), covered.len());
    assert!(not_evaluable.len() <= 1, "{not_evaluable:?}");
    let not = body["not_covered"].as_array().unwrap();
    assert!(not
        .iter()
        .any(|n| n["name"].as_str().unwrap().contains("GI-RADS")));
    assert!(not
        .iter()
        .all(|n| n["reason"].as_str().is_some_and(|r| !r.is_empty())));
    // What the evaluator cannot be asked yet is listed per system.
    let bone = body["covered"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == "ssr-bone-rads-2022")
        .unwrap();
    assert!(bone["inputs_not_modelled"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("T1 signal of the lesion on MRI")));
    // Which systems carry external codes, per scheme; the detail shows each with its source.
    assert!(body["totals"]["systems_with_codes"].as_u64().unwrap() >= 10);
    let bi_rads = body["covered"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == "acr-bi-rads-2013")
        .unwrap();
    assert!(bi_rads["codes"]["SNOMED CT"].as_u64().unwrap() >= 6);
    let detail = get("/api/v1/systems/acr-bi-rads-2013").json();
    assert_eq!(detail["codes"][0]["code"], "RDES245");
    let category_0 = detail["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["code"] == "0")
        .unwrap();
    assert_eq!(category_0["codes"][0]["scheme"], "SNOMED CT");
    assert_eq!(category_0["codes"][0]["code"], "397138000");
    assert!(category_0["codes"][0]["source"]
        .as_str()
        .unwrap()
        .contains('@'));
    assert!(body["notice"]
        .as_str()
        .unwrap()
        .contains("not a medical device"));
}

#[test]
fn repeat_with_if_none_match_is_304() {
    let first = get("/api/v1/systems/fleischner-2017");
    let etag = first.header("etag").expect("ETag").to_string();
    assert!(first.header("cache-control").unwrap().contains("public"));
    let again = send(
        "GET",
        "/api/v1/systems/fleischner-2017",
        &[("If-None-Match", &etag)],
        None,
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    let stale = send(
        "GET",
        "/api/v1/systems/fleischner-2017",
        &[("If-None-Match", "\"stale\"")],
        None,
    );
    assert_eq!(stale.status, 200);
}

#[test]
fn rate_limit_answers_429_with_headers() {
    // `make test` runs the worker with CORPUS_RATE_LIMIT=40.
    let ip = [("CF-Connecting-IP", "203.0.113.77")];
    let mut first = send("GET", "/api/v1/organs", &ip, None);
    assert_eq!(first.status, 200);
    // Windows are fixed: when this one is about to end, start in the next so it cannot reset
    // half-way through the loop.
    let reset: u64 = first.header("x-ratelimit-reset").unwrap().parse().unwrap();
    if reset < 30 {
        std::thread::sleep(std::time::Duration::from_secs(reset + 1));
        first = send("GET", "/api/v1/organs", &ip, None);
    }
    let limit: u32 = first.header("x-ratelimit-limit").unwrap().parse().unwrap();
    let remaining: u32 = first
        .header("x-ratelimit-remaining")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(remaining, limit - 1);
    assert!(first.header("x-ratelimit-reset").is_some());
    let mut last = first;
    for _ in 0..limit {
        last = send("GET", "/api/v1/organs", &ip, None);
        if last.status == 429 {
            break;
        }
    }
    assert_eq!(last.status, 429);
    assert!(last.json()["error"].is_string());
    assert!(last.header("retry-after").unwrap().parse::<u64>().unwrap() > 0);
    assert_eq!(last.header("x-ratelimit-remaining"), Some("0"));
    // Another client is unaffected.
    assert_eq!(get("/api/v1/organs").status, 200);
}

#[test]
fn llms_txt_follows_the_convention() {
    let reply = get("/llms.txt");
    assert_eq!(reply.status, 200);
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("text/plain"));
    let body = &reply.body;
    assert!(body.starts_with("# radref\n"), "H1 first");
    assert!(
        body.lines().any(|l| l.starts_with("> ")),
        "a summary blockquote"
    );
    assert!(body.contains("## "), "link sections");
    assert!(body.contains("not a medical device"));
    assert!(body.contains("(/api/v1/systems)"));
    assert!(body.contains("(/mcp)") && body.contains("radref_ground"));
    assert!(body.contains("/api/v1/context"));
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
}

#[test]
fn openapi_document_describes_the_routes() {
    let reply = get("/api/v1/openapi");
    assert_eq!(reply.status, 200);
    let doc = reply.json();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    for path in [
        "/api/v1/systems",
        "/api/v1/systems/{id}",
        "/api/v1/search",
        "/feed/changes.xml",
    ] {
        assert!(doc["paths"][path].is_object(), "{path}");
    }
    assert_eq!(
        doc["paths"]["/api/v1/systems/{id}"]["get"]["operationId"],
        "getSystem"
    );
}

/// A system that joined the corpus after its first release is announced by the changes feed
/// the day it joined, in JSON and in RSS, beside its lineage's version events.
#[test]
fn the_changes_feed_announces_a_system_that_joined_the_corpus() {
    let body = get("/api/v1/changes?since=2026-11-27&limit=100").json();
    let added: Vec<&Value> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "added")
        .collect();
    let fazekas = added
        .iter()
        .find(|e| e["slug"] == "fazekas-1987")
        .expect("an added event for fazekas-1987");
    assert_eq!(fazekas["date"], "2026-11-27");
    assert_eq!(fazekas["links"]["system"], "/api/v1/systems/fazekas-1987");
    assert!(fazekas["summary"].as_str().unwrap().contains("joined"));
    let rss = get("/feed/changes.xml").body;
    assert!(
        rss.contains("fazekas-1987/added/"),
        "no RSS item for the added system"
    );
}
