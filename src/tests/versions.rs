//! Two versions of one guideline through the whole app function: the diff (JSON and
//! markdown), the re-score of one input set and of a batch, and each refusal. Every lineage
//! pair of the corpus is diffed and re-scored on the earlier version's own examples.

use crate::app::handle;
use crate::config::Config;
use crate::corpus::compiled::{self, SYSTEMS};
use crate::host::{block_on, HostServices};
use crate::http::{Method, Request, Response};
use crate::services::App;
use serde_json::{json, Value};

fn send(request: Request) -> Response {
    let app = App::new(Config {
        corpus_rate_limit: u32::MAX,
        ..Config::default()
    });
    block_on(handle(&app, &HostServices::default(), request))
}

fn get(target: &str) -> Response {
    send(Request::new(Method::Get, target))
}

fn post(target: &str, body: &Value) -> Response {
    send(
        Request::new(Method::Post, target)
            .with_header("content-type", "application/json")
            .with_body(body.to_string().into_bytes()),
    )
}

fn json_of(r: &Response) -> Value {
    serde_json::from_slice(&r.body).unwrap()
}

/// Every (earlier, later) pair the corpus links.
fn pairs() -> Vec<(&'static str, String)> {
    (0..SYSTEMS.len())
        .filter_map(compiled::logic)
        .flat_map(|l| {
            l.currency.superseded_by.iter().map(move |later| {
                (
                    SYSTEMS.iter().find(|s| s.slug == l.slug).unwrap().slug,
                    later.clone(),
                )
            })
        })
        .collect()
}

#[test]
fn every_pair_diffs_both_ways_with_cited_lines_on_the_sides_that_have_them() {
    let pairs = pairs();
    assert!(pairs.len() >= 4, "{pairs:?}");
    for (earlier, later) in &pairs {
        for (a, b, direction) in [
            (*earlier, later.as_str(), "forward"),
            (later.as_str(), *earlier, "backward"),
        ] {
            let r = get(&format!("/api/v1/systems/{a}/diff/{b}"));
            assert_eq!(
                r.status,
                200,
                "{a} -> {b}: {}",
                String::from_utf8_lossy(&r.body)
            );
            let d = json_of(&r);
            assert_eq!(d["direction"], direction);
            assert_eq!(d["from"]["slug"], a);
            for c in d["changes"].as_array().unwrap() {
                let (from, to) = (c["from"].as_array().unwrap(), c["to"].as_array().unwrap());
                assert!(!from.is_empty() || !to.is_empty(), "{c}");
                for (side, lines) in [("from", from), ("to", to)] {
                    for l in lines {
                        let id = l["citation"].as_str().unwrap();
                        assert!(
                            d["references"][side][id].is_string(),
                            "{a}->{b}: {id} not in references.{side}"
                        );
                        assert!(!l["locator"].as_str().unwrap().is_empty());
                    }
                }
                // What is new has no earlier line, what is gone no later one.
                match c["kind"].as_str().unwrap() {
                    "input_added" | "unit_added" | "category_added" | "rule_added" => {
                        assert!(from.is_empty())
                    }
                    "input_removed" | "unit_removed" | "category_removed" | "rule_removed" => {
                        assert!(to.is_empty())
                    }
                    _ => assert!(!from.is_empty() && !to.is_empty(), "{c}"),
                }
            }
            let total: u64 = d["counts"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum();
            assert_eq!(total as usize, d["changes"].as_array().unwrap().len());
        }
    }
}

#[test]
fn the_pi_rads_diff_names_the_transition_zone_upgrade_with_its_cited_rule() {
    let d = json_of(&get(
        "/api/v1/systems/pi-rads-v2-2015/diff/pi-rads-v2-1-2019",
    ));
    let added: Vec<&Value> = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "rule_added" && c["unit"] == "transition_zone")
        .collect();
    assert_eq!(added.len(), 1, "{}", d["changes"]);
    assert_eq!(added[0]["subject"], "PI-RADS 3");
    assert_eq!(added[0]["to"][0]["citation"], "turkbey2019");
    // The reverse diff removes it.
    let back = json_of(&get(
        "/api/v1/systems/pi-rads-v2-1-2019/diff/pi-rads-v2-2015",
    ));
    assert!(back["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["kind"] == "rule_removed" && c["unit"] == "transition_zone"));
    // Markdown: both sides' lines with numbered references.
    let md = get("/api/v1/systems/pi-rads-v2-2015/diff/pi-rads-v2-1-2019?format=markdown");
    assert_eq!(md.status, 200);
    assert!(md
        .header("content-type")
        .unwrap()
        .starts_with("text/markdown"));
    let text = String::from_utf8(md.body.to_vec()).unwrap();
    assert!(text.contains("### rule added"), "{text}");
    let refs = &text[text.find("References:").unwrap()..];
    assert!(
        refs.contains("1. Weinreb JC") && refs.contains("2. Turkbey B"),
        "{text}"
    );
    // The DWI score definitions that v2.1 rewrote are shown side by side.
    let dwi = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "values_redescribed" && c["subject"] == "dwi_score")
        .expect("dwi_score redescribed");
    assert!(
        dwi["added"].as_array().unwrap().contains(&json!("2")),
        "{dwi}"
    );
}

#[test]
fn a_rescore_moves_what_the_later_rule_decides_otherwise_and_asks_for_what_it_needs() {
    let r = post(
        "/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019",
        &json!({"inputs": {"t2w_tz_score": "2", "dwi_score": "4"}}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let b = json_of(&r);
    assert_eq!(b["moved"], true);
    let tz = b["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["unit"] == "transition_zone")
        .unwrap();
    assert_eq!(tz["from"]["answer"], "PI-RADS 2");
    assert_eq!(tz["to"]["answer"], "PI-RADS 3");
    assert_eq!(tz["to"]["rule"]["citation"], "turkbey2019");
    assert_eq!(tz["moved"], true);
    // Without the DWI score v2 still decides; v2.1 asks for it, never guesses.
    let b = json_of(&post(
        "/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019",
        &json!({"inputs": {"t2w_tz_score": "2"}}),
    ));
    let tz = b["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["unit"] == "transition_zone")
        .unwrap();
    assert_eq!(tz["from"]["status"], "decided");
    assert_eq!(tz["to"]["status"], "needs_inputs");
    assert_eq!(tz["moved"], false);
    assert!(b["needs"]["to"]
        .as_array()
        .unwrap()
        .contains(&json!("dwi_score")));
}

#[test]
fn an_input_only_one_version_takes_is_set_aside_for_the_other() {
    let b = json_of(&post(
        "/api/v1/systems/acr-lung-rads-v1-1/rescore/acr-lung-rads-v2022",
        &json!({"inputs": {"prior_category": "4A", "followup_finding": "stable_or_decreased", "prior_is_airway_nodule": false}, "format": "json"}),
    ));
    assert_eq!(b["set_aside"]["from"][0]["input"], "prior_is_airway_nodule");
    assert!(b["set_aside"]["to"].as_array().unwrap().is_empty());
    let step = b["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["unit"] == "stepped_management")
        .unwrap();
    assert_eq!(
        (
            step["from"]["answer"].as_str(),
            step["to"]["answer"].as_str()
        ),
        (Some("2"), Some("3"))
    );
    assert_eq!(step["moved"], true);
}

#[test]
fn a_batch_counts_what_moved_and_refuses_only_its_bad_cases() {
    let b = json_of(&post(
        "/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019",
        &json!({"inputs": [
            {"t2w_tz_score": "2", "dwi_score": "4"},
            {"t2w_tz_score": "2", "dwi_score": "5"},
            {"t2w_tz_score": "4", "dwi_score": "4"},
            {"t2w_tz_score": "9"}
        ]}),
    ));
    assert_eq!(
        b["counts"],
        json!({"cases": 4, "moved": 2, "unchanged": 1, "refused": 1})
    );
    assert_eq!(
        b["moved"],
        json!([{"unit": "transition_zone", "from": "PI-RADS 2", "to": "PI-RADS 3", "count": 2}])
    );
    assert_eq!(b["cases"][3]["error"]["field"], "inputs[3].t2w_tz_score");
    assert!(b["cases"][0]["units"].is_array());
    let md = post(
        "/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019",
        &json!({"inputs": [{"t2w_tz_score": "2", "dwi_score": "4"}], "format": "markdown"}),
    );
    let text = String::from_utf8(md.body.to_vec()).unwrap();
    assert!(
        text.contains("transition_zone: PI-RADS 2 → PI-RADS 3 × 1"),
        "{text}"
    );
}

#[test]
fn refusals_say_what_is_wrong() {
    let cases: [(Response, u16, &str, &str); 7] = [
        (
            get("/api/v1/systems/pi-rads-v2-2015/diff/pi-rads-v2-2015"),
            400,
            "other",
            "same system",
        ),
        (
            get("/api/v1/systems/pi-rads-v2-2015/diff/fleischner-2017"),
            400,
            "other",
            "its versions: pi-rads-v2-1-2019",
        ),
        (
            get("/api/v1/systems/fleischner-2017/diff/bosniak-v2019"),
            400,
            "other",
            "no other version",
        ),
        (
            get("/api/v1/systems/pi-rads-v9/diff/pi-rads-v2-1-2019"),
            404,
            "id",
            "closest",
        ),
        (
            get("/api/v1/systems/pi-rads-v2-2015/diff/pi-rads-v2-1-2019?format=pdf"),
            400,
            "format",
            "allowed: json, markdown",
        ),
        (
            post(
                "/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019",
                &json!({}),
            ),
            400,
            "inputs",
            "required",
        ),
        (
            post(
                "/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019",
                &json!({"inputs": {"size": 3}}),
            ),
            400,
            "inputs.size",
            "unknown input",
        ),
    ];
    for (r, status, field, says) in cases {
        let b = json_of(&r);
        assert_eq!(r.status, status, "{b}");
        let message = b["error"].as_str().unwrap();
        assert!(message.contains(says), "{b}");
        // The message names the argument (a path segment by its value).
        let named = field.split('.').next_back().unwrap();
        assert!(
            message.contains(named) || ["other", "id"].contains(&field),
            "{b}"
        );
    }
    let many: Vec<Value> = (0..101).map(|_| json!({})).collect();
    let r = post(
        "/api/v1/systems/pi-rads-v2-2015/rescore/pi-rads-v2-1-2019",
        &json!({"inputs": many}),
    );
    assert_eq!(r.status, 400);
    assert!(json_of(&r)["error"].as_str().unwrap().contains("1 to 100"));
}

#[test]
fn every_example_of_an_earlier_version_rescores_under_both() {
    for (earlier, later) in pairs() {
        let logic =
            compiled::logic(SYSTEMS.iter().position(|s| s.slug == earlier).unwrap()).unwrap();
        let sets: Vec<Value> = logic
            .decision_units
            .iter()
            .flat_map(|u| u.examples.iter().map(|e| Value::Object(e.inputs.clone())))
            .take(100)
            .collect();
        if sets.is_empty() {
            continue;
        }
        let b = json_of(&post(
            &format!("/api/v1/systems/{earlier}/rescore/{later}"),
            &json!({"inputs": sets}),
        ));
        assert_eq!(b["counts"]["refused"], 0, "{earlier}: {}", b["cases"]);
        assert_eq!(b["counts"]["cases"].as_u64().unwrap() as usize, sets.len());
    }
}

#[test]
fn the_changes_feed_links_a_version_to_its_diff() {
    let b = json_of(&get("/api/v1/changes?limit=500"));
    let events = b["data"].as_array().unwrap();
    let older = events
        .iter()
        .find(|e| e["slug"] == "acr-lung-rads-v1-1")
        .unwrap();
    assert_eq!(
        older["links"]["diff"],
        "/api/v1/systems/acr-lung-rads-v1-1/diff/acr-lung-rads-v2022"
    );
    let newer = events
        .iter()
        .find(|e| e["slug"] == "acr-lung-rads-v2022")
        .unwrap();
    assert_eq!(
        newer["links"]["diff"],
        "/api/v1/systems/acr-lung-rads-v1-1/diff/acr-lung-rads-v2022"
    );
    let rss = String::from_utf8(get("/feed/changes.xml").body.to_vec()).unwrap();
    assert!(rss.contains("/api/v1/systems/acr-lung-rads-v1-1/diff/acr-lung-rads-v2022</link>"));
}
