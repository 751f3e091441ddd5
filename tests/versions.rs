//! Two versions of one guideline over HTTP, from a client's side: the diff as JSON and
//! markdown (cacheable, CORS), a re-score of one patient and of a cohort, a refusal, and the
//! changes feed's link to the diff.

use crate::support::{get, send};
use serde_json::{json, Value};

fn post(path: &str, body: &Value) -> crate::support::Reply {
    send(
        "POST",
        path,
        &[("Content-Type", "application/json")],
        Some(body.to_string().as_bytes()),
    )
}

const LUNG_RADS: &str = "/api/v1/systems/acr-lung-rads-v1-1/diff/acr-lung-rads-v2022";

#[test]
fn the_lung_rads_diff_lists_typed_changes_with_both_sides_cited() {
    let reply = get(LUNG_RADS);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    let etag = reply.header("etag").expect("ETag").to_string();
    let d = reply.json();
    assert_eq!(d["direction"], "forward");
    assert_eq!(d["to"]["status"], "current");
    let changes = d["changes"].as_array().unwrap();
    let kinds: Vec<&str> = changes
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    for kind in ["input_added", "unit_added", "values_changed", "rule_added"] {
        assert!(kinds.contains(&kind), "{kinds:?}");
    }
    // v2022's atypical cysts are a unit of their own, cited to the later source.
    let cyst = changes
        .iter()
        .find(|c| c["kind"] == "unit_added" && c["subject"] == "atypical_cyst")
        .expect("atypical cyst unit");
    assert!(cyst["from"].as_array().unwrap().is_empty());
    let line = &cyst["to"][0];
    assert!(d["references"]["to"][line["citation"].as_str().unwrap()].is_string());
    assert!(!d["announced"].as_array().unwrap().is_empty());
    // The answer depends on the corpus only: a repeated GET is 304.
    let again = send("GET", LUNG_RADS, &[("If-None-Match", &etag)], None);
    assert_eq!(again.status, 304);
    let md = get(&format!("{LUNG_RADS}?format=markdown"));
    assert!(md
        .header("content-type")
        .unwrap()
        .starts_with("text/markdown"));
    let text = md.body.clone();
    assert!(text.contains("### unit added"), "{text}");
    assert!(text.contains("not a medical device"));
}

#[test]
fn a_patient_and_a_cohort_are_rescored_under_both_versions() {
    let path = "/api/v1/systems/acr-lung-rads-v1-1/rescore/acr-lung-rads-v2022";
    let one = post(
        path,
        &json!({"inputs": {"prior_category": "4A", "followup_finding": "stable_or_decreased"}}),
    );
    assert_eq!(one.status, 200);
    let b = one.json();
    let step = b["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["unit"] == "stepped_management")
        .unwrap()
        .clone();
    assert_eq!(step["from"]["answer"], "2");
    // v2022 asks whether the finding is an airway nodule before it steps a 4A down.
    assert_eq!(step["to"]["status"], "needs_inputs");
    assert!(b["needs"]["to"]
        .as_array()
        .unwrap()
        .contains(&json!("prior_is_airway_nodule")));
    let cohort = post(
        path,
        &json!({"inputs": [
            {"prior_category": "4A", "followup_finding": "stable_or_decreased", "prior_is_airway_nodule": false},
            {"prior_category": "4A", "followup_finding": "stable_or_decreased", "prior_is_airway_nodule": false},
            {"prior_category": "4A", "followup_finding": "sideways"}
        ]}),
    )
    .json();
    assert_eq!(cohort["counts"]["cases"], 3);
    assert_eq!(cohort["counts"]["refused"], 1);
    assert_eq!(
        cohort["moved"][0],
        json!({"unit": "stepped_management", "from": "2", "to": "3", "count": 2})
    );
    assert_eq!(
        cohort["cases"][2]["error"]["field"],
        "inputs[2].followup_finding"
    );
}

#[test]
fn systems_of_two_guidelines_are_refused() {
    let reply = get("/api/v1/systems/acr-lung-rads-v1-1/diff/fleischner-2017");
    assert_eq!(reply.status, 400);
    assert!(reply.json()["error"]
        .as_str()
        .unwrap()
        .contains("acr-lung-rads-v2022"));
}

#[test]
fn the_changes_feed_links_the_earlier_version_to_its_diff() {
    let events = get("/api/v1/changes?limit=500").json();
    let event = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["slug"] == "bosniak-2005")
        .expect("an event of bosniak-2005")
        .clone();
    assert_eq!(
        event["links"]["diff"],
        "/api/v1/systems/bosniak-2005/diff/bosniak-v2019"
    );
    assert_eq!(get(event["links"]["diff"].as_str().unwrap()).status, 200);
}
