//! Evaluating a system over HTTP, from a client's side: GET and POST, markdown, 304 on a
//! repeated GET, CORS, and each refusal naming its field.

use crate::support::{get, send};
use serde_json::{json, Value};

const TR4_12MM: &str = "/api/v1/systems/acr-ti-rads-2017/evaluate?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail&max_diameter_mm=12";

fn post(path: &str, body: &Value) -> crate::support::Reply {
    send(
        "POST",
        path,
        &[("Content-Type", "application/json")],
        Some(body.to_string().as_bytes()),
    )
}

#[test]
fn get_gives_the_tr_level_the_fna_answer_and_what_would_change_it() {
    let reply = get(TR4_12MM);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    assert!(reply.header("x-ratelimit-limit").is_some());
    let body = reply.json();
    let level = &body["units"][0];
    assert_eq!(level["id"], "tirads_level");
    assert_eq!(level["status"], "decided");
    assert_eq!(level["outcome"]["code"], "TR4");
    assert_eq!(level["score"]["value"], 4.0);
    assert_eq!(level["rule"]["citation"], "tessler2017");
    assert!(level["rule"]["locator"]
        .as_str()
        .unwrap()
        .contains("Figure 1"));
    let fna = &body["units"][1];
    assert_eq!(fna["result"], "US follow-up at 1, 2, 3 and 5 years");
    assert_eq!(
        fna["changes"][0]["note"],
        "Maximum nodule diameter at 15 mm or more: FNA"
    );
    assert_eq!(body["links"]["self"], TR4_12MM);
}

#[test]
fn a_repeated_get_is_304() {
    let first = get(TR4_12MM);
    let etag = first.header("etag").expect("ETag").to_string();
    let again = send("GET", TR4_12MM, &[("If-None-Match", &etag)], None);
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
}

#[test]
fn post_stops_at_an_unknown_rule_and_lists_what_is_missing() {
    let reply = post(
        "/api/v1/systems/fleischner-2017/evaluate",
        &json!({"inputs": {"nodule_type": "part_solid", "nodule_number": "single", "size_mm": 8}}),
    );
    assert_eq!(reply.status, 200);
    let body = reply.json();
    let unit = body["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == "subsolid_nodules")
        .unwrap();
    assert_eq!(unit["status"], "needs_inputs");
    assert_eq!(unit["missing"][0]["id"], "solid_component_mm");
    assert_eq!(
        unit["trace"].as_array().unwrap().last().unwrap()["holds"],
        "unknown"
    );
    // A unit selection evaluates that unit and what it depends on.
    let reply = post(
        "/api/v1/systems/acr-ti-rads-2017/evaluate",
        &json!({"inputs": {"composition": "spongiform", "max_diameter_mm": 30}, "units": ["fna_followup"]}),
    );
    let ids: Vec<String> = reply.json()["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["tirads_level", "fna_followup"]);
}

#[test]
fn markdown_is_one_cited_block() {
    let reply = get(&format!("{TR4_12MM}&format=markdown"));
    assert_eq!(reply.status, 200);
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("text/markdown"));
    assert!(reply.body.contains("**TR4 (Moderately suspicious)**"));
    assert!(reply
        .body
        .contains("Would change: Maximum nodule diameter at 15 mm or more: FNA"));
    assert!(reply.body.contains("1. Tessler FN"));
    let tokens: usize = reply.header("x-approx-tokens").unwrap().parse().unwrap();
    assert!(tokens < 1200, "{tokens}");
}

#[test]
fn each_refusal_names_its_field() {
    let base = "/api/v1/systems/acr-ti-rads-2017/evaluate";
    for (query, needle) in [
        ("?colour=red", "this system's inputs: composition"),
        ("?max_diameter_mm=big", "must be a number"),
        ("?composition=solidish", "allowed: cystic, spongiform"),
        ("?max_diameter_mm=-3", "at least 0"),
        ("?units=nope", "tirads_level, fna_followup"),
    ] {
        let reply = get(&format!("{base}{query}"));
        assert_eq!(reply.status, 400, "{query}");
        let message = reply.json()["error"].as_str().unwrap().to_string();
        assert!(message.contains(needle), "{query}: {message}");
    }
    let reply = post(base, &json!({"inputs": {"echogenic_foci": "punctate"}}));
    assert_eq!(reply.status, 400);
    assert!(reply.json()["error"]
        .as_str()
        .unwrap()
        .contains("send a list"));
    let reply = get("/api/v1/systems/fleischner-2005/evaluate");
    assert_eq!(reply.status, 404);
    assert!(reply.json()["error"]
        .as_str()
        .unwrap()
        .contains("fleischner-2017"));
}

/// An appropriateness topic is evaluated from the scenario's facts: the unit chooses the
/// clinical variant, and the answer carries that variant's procedures, each with its rating,
/// relative radiation level and citation.
#[test]
fn an_appropriateness_topic_answers_with_the_variants_procedures() {
    let reply = post(
        "/api/v1/systems/acr-ac-low-back-pain-2021/evaluate",
        &json!({ "inputs": {
            "red_flags": [], "pain_duration": "acute", "prior_management": "none",
            "prior_lumbar_surgery": false
        } }),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let unit = &reply.json()["units"][0];
    assert_eq!(unit["status"], "decided", "{unit}");
    assert_eq!(unit["outcome"]["code"], "v1");
    let procedures = unit["outcome"]["management"].as_array().unwrap();
    assert!(procedures.len() >= 5, "{procedures:?}");
    let radiography = procedures
        .iter()
        .find(|p| {
            p["text"]
                .as_str()
                .unwrap()
                .starts_with("Radiography lumbar spine:")
        })
        .unwrap();
    assert!(radiography["text"]
        .as_str()
        .unwrap()
        .contains("usually not appropriate"));
    assert!(radiography["text"]
        .as_str()
        .unwrap()
        .contains("relative radiation level"));
    assert_eq!(radiography["citation"], "acr_lbp_2021");
    assert_eq!(radiography["locator"], "Variant 1 table");
    // A red flag chooses its own variant, whatever else is said.
    let reply = post(
        "/api/v1/systems/acr-ac-low-back-pain-2021/evaluate",
        &json!({ "inputs": { "red_flags": ["suspected_cauda_equina"] } }),
    );
    assert_eq!(reply.json()["units"][0]["outcome"]["code"], "v4");
}

/// A unit whose rule only points to another unit says so: Fleischner's subsolid unit, given a
/// solid nodule, is decided with `defers_to` naming the solid unit, which answers the case.
#[test]
fn a_unit_that_defers_names_the_unit_that_answers() {
    let reply = post(
        "/api/v1/systems/fleischner-2017/evaluate",
        &json!({"inputs": {"nodule_type": "solid", "nodule_number": "single", "size_mm": 7, "risk": "low"}}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    let unit = |id: &str| {
        body["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["id"] == id)
            .cloned()
            .unwrap()
    };
    let subsolid = unit("subsolid_nodules");
    assert_eq!(subsolid["status"], "decided");
    assert_eq!(subsolid["result"], "See solid nodules");
    assert_eq!(subsolid["defers_to"], json!(["solid_nodules"]));
    let solid = unit("solid_nodules");
    assert!(solid.get("defers_to").is_none(), "{solid}");
    // The system's detail carries the pointer on the rule itself.
    let detail = get("/api/v1/systems/fleischner-2017").json();
    let rules = detail["decision_units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == "subsolid_nodules")
        .unwrap()["rules"]
        .clone();
    assert_eq!(rules[0]["defers_to"], json!(["solid_nodules"]));
    // As FHIR, the deferring unit gives no Observation; the solid unit does.
    let reply = send(
        "POST",
        "/api/v1/systems/fleischner-2017/evaluate?format=fhir",
        &[("Content-Type", "application/json")],
        Some(
            json!({"inputs": {"exclusions": [], "age_years": 61, "nodule_type": "solid",
                "nodule_number": "single", "size_mm": 7, "risk": "low", "typical_perifissural": false}})
            .to_string()
            .as_bytes(),
        ),
    );
    let codes: Vec<String> = reply.json()["entry"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["resource"]["code"]["coding"].as_array().unwrap().clone())
        .filter_map(|c| c["code"].as_str().map(str::to_string))
        .collect();
    assert!(
        codes.contains(&"unit:solid_nodules".to_string()),
        "{codes:?}"
    );
    assert!(
        !codes.contains(&"unit:subsolid_nodules".to_string()),
        "{codes:?}"
    );
}
