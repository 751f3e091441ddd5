//! `GET|POST /api/v1/systems/{slug}/evaluate` through the whole app function: the JSON
//! answer, the markdown block, caching (304 on a repeated GET), and each refusal naming its
//! field.

use crate::app::handle;
use crate::config::Config;
use crate::host::{block_on, HostServices};
use crate::http::{Method, Request, Response};
use crate::services::App;
use serde_json::{json, Value};

const TR4_12MM: &str = "/api/v1/systems/acr-ti-rads-2017/evaluate?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail&max_diameter_mm=12";

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

fn error_of(r: &Response) -> String {
    json_of(r)["error"].as_str().unwrap().to_string()
}

#[test]
fn get_answers_each_unit_with_its_cited_rule_and_is_cacheable() {
    let r = get(TR4_12MM);
    assert_eq!(r.status, 200);
    let b = json_of(&r);
    assert_eq!(b["slug"], "acr-ti-rads-2017");
    let level = &b["units"][0];
    assert_eq!(level["status"], "decided");
    assert_eq!(level["outcome"]["code"], "TR4");
    assert_eq!(level["score"]["value"], 4.0);
    assert_eq!(level["rule"]["index"], 2);
    assert_eq!(level["rule"]["citation"], "tessler2017");
    let fna = &b["units"][1];
    assert_eq!(fna["result"], "US follow-up at 1, 2, 3 and 5 years");
    assert_eq!(
        fna["changes"][0]["note"],
        "Maximum nodule diameter at 15 mm or more: FNA"
    );
    assert!(b["references"]["tessler2017"]["title"].is_string());
    assert_eq!(b["links"]["self"], TR4_12MM);
    assert_eq!(b["missing"], json!([]));
    let etag = r.header("etag").unwrap().to_string();
    let again = send(Request::new(Method::Get, TR4_12MM).with_header("if-none-match", &etag));
    assert_eq!(again.status, 304);
}

#[test]
fn post_takes_a_body_and_a_unit_selection() {
    let r = post(
        "/api/v1/systems/fleischner-2017/evaluate",
        &json!({"inputs": {"nodule_type": "part_solid", "nodule_number": "single", "size_mm": 8},
                "units": ["subsolid_nodules"]}),
    );
    assert_eq!(r.status, 200);
    let b = json_of(&r);
    assert_eq!(b["units"].as_array().unwrap().len(), 1);
    let u = &b["units"][0];
    assert_eq!(u["status"], "needs_inputs");
    assert_eq!(u["missing"][0]["id"], "solid_component_mm");
    assert_eq!(u["missing"][0]["unit"], "mm");
    assert_eq!(b["missing"], json!(["solid_component_mm"]));
    assert!(r.header("etag").is_none());
}

#[test]
fn markdown_is_one_compact_cited_block() {
    let r = get(&format!("{TR4_12MM}&format=markdown"));
    assert_eq!(r.status, 200);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("text/markdown"));
    let md = String::from_utf8(r.body.to_vec()).unwrap();
    assert!(md.contains("**TR4 (Moderately suspicious)**"), "{md}");
    assert!(
        md.contains("Would change: Maximum nodule diameter at 15 mm or more: FNA [1, "),
        "{md}"
    );
    assert!(md.contains("1. Tessler FN"), "{md}");
    let tokens: usize = r.header("x-approx-tokens").unwrap().parse().unwrap();
    assert!(tokens < 1200, "{tokens} tokens:\n{md}");
}

#[test]
fn each_refusal_names_its_field() {
    let base = "/api/v1/systems/acr-ti-rads-2017/evaluate";
    for (query, status, needle) in [
        ("?colour=red", 400, "this system's inputs: composition"),
        ("?max_diameter_mm=big", 400, "must be a number"),
        ("?composition=solidish", 400, "allowed: cystic, spongiform"),
        ("?max_diameter_mm=-3", 400, "at least 0"),
        (
            "?echogenic_foci=punctate,sparkly",
            400,
            "no value 'sparkly'",
        ),
        (
            "?composition=solid&composition=cystic",
            400,
            "more than once",
        ),
        ("?units=nope", 400, "tirads_level, fna_followup"),
        ("?format=xml", 400, "json, markdown"),
    ] {
        let r = get(&format!("{base}{query}"));
        assert_eq!(r.status, status, "{query}");
        assert!(error_of(&r).contains(needle), "{query}: {}", error_of(&r));
    }
    // A bad `format` in the query is refused even when the body names a good one.
    let r = post(&format!("{base}?format=0"), &json!({"format": "json"}));
    assert_eq!(r.status, 400);
    assert!(error_of(&r).contains("json, markdown"), "{}", error_of(&r));
    // The body's own fields are objects, lists or strings as documented, never null.
    for (body, field) in [
        (json!({"inputs": null}), "inputs"),
        (json!({"units": null}), "units"),
        (json!({"format": null}), "format"),
    ] {
        let r = post(base, &body);
        assert_eq!(r.status, 400, "{body}");
        assert!(error_of(&r).contains(field), "{body}: {}", error_of(&r));
    }
    let r = post(base, &json!({"inputs": {"echogenic_foci": "punctate"}}));
    assert_eq!(r.status, 400);
    assert!(error_of(&r).contains("send a list"), "{}", error_of(&r));
    let r = post(base, &json!({"inputs": {"max_diameter_mm": "12"}}));
    assert!(
        error_of(&r).contains("must be a number"),
        "{}",
        error_of(&r)
    );
    let r = post(base, &json!({"inputs": {}, "colour": 1}));
    assert!(
        error_of(&r).contains("unknown field 'colour'"),
        "{}",
        error_of(&r)
    );
    let r = get("/api/v1/systems/acr-ti-rad-2017/evaluate");
    assert_eq!(r.status, 404);
    assert!(
        error_of(&r).contains("acr-ti-rads-2017"),
        "{}",
        error_of(&r)
    );
}

/// The evaluate link a context answer gives each system, followed through the app as a client
/// would: a 200 evaluation whose missing inputs are the ones the context listed, deciding the
/// units the context said it decides. (The same over HTTP is in `tests/context.rs`.)
#[test]
fn a_context_answer_links_each_system_to_its_evaluation() {
    const KEY: &str = "rr_ctxeval1_contextKeyForEvaluateLinkTests1";
    let db = crate::host::sqlite::Sqlite::new().with_key(KEY, "dana", "context");
    let app = App::new(Config {
        corpus_rate_limit: u32::MAX,
        ..Config::default()
    });
    for text in [
        "TI-RADS TR4 nodule measuring 1.6 cm, solid, hypoechoic",
        "Per Fleischner: 1.2 cm part-solid nodule with a 4 mm solid component in a 64-year-old",
        "Cirrhotic liver, 15 mm observation with nonrim arterial phase hyperenhancement on MRI",
        "Branch duct IPMN 25 mm with MPD 6 mm",
    ] {
        let request = Request::new(Method::Post, "/api/v1/context")
            .with_header("x-api-key", KEY)
            .with_header("content-type", "application/json")
            .with_body(json!({ "text": text, "verified": false }).to_string());
        let r = block_on(handle(&app, &db, request));
        assert_eq!(r.status, 200, "{text}");
        let context = json_of(&r);
        for system in context["systems"].as_array().unwrap() {
            let link = system["links"]["evaluate"].as_str().unwrap();
            let r = get(link);
            assert_eq!(r.status, 200, "{link}");
            let evaluation = json_of(&r);
            let listed: Vec<&Value> = system["missing_inputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| &i["id"])
                .collect();
            let missing: Vec<&Value> = evaluation["missing"].as_array().unwrap().iter().collect();
            assert_eq!(listed, missing, "{text}: {link}");
            assert_eq!(evaluation["links"]["self"], link);
            let decided: Vec<&Value> = evaluation["units"]
                .as_array()
                .unwrap()
                .iter()
                // A unit that defers to another decided nothing of the finding.
                .filter(|u| u["status"] == "decided" && u.get("defers_to").is_none())
                .map(|u| &u["id"])
                .collect();
            let said: Vec<&Value> = system["decided"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| &d["unit"])
                .collect();
            assert_eq!(said, decided, "{text}: {link}");
        }
    }
}

#[test]
fn fhir_is_a_bundle_of_one_observation_per_decided_unit_with_the_codes_it_rests_on() {
    let by_accept =
        send(Request::new(Method::Get, TR4_12MM).with_header("accept", "application/fhir+json"));
    assert_eq!(by_accept.status, 200);
    assert!(by_accept
        .header("content-type")
        .unwrap()
        .starts_with("application/fhir+json"));
    assert_eq!(by_accept.header("vary"), Some("Accept"));
    let b = json_of(&by_accept);
    assert_eq!(b["resourceType"], "Bundle");
    assert_eq!(b["type"], "collection");
    let entries = b["entry"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "both TI-RADS units decide");
    let level = &entries[0]["resource"];
    assert_eq!(level["status"], "preliminary", "its lines are drafts");
    let system = "http://localhost/api/v1/fhir/CodeSystem/acr-ti-rads-2017";
    let coded = |concept: &Value, code: &str| {
        concept["coding"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["system"] == system && c["code"] == code)
    };
    assert!(coded(&level["code"], "unit:tirads_level"));
    assert!(coded(&level["valueCodeableConcept"], "TR4"));
    assert!(level["method"]["text"].as_str().unwrap().contains("rule"));
    assert!(level["note"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Figure 1"));
    let size = level["component"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["valueQuantity"].is_object())
        .unwrap();
    assert_eq!(size["valueQuantity"]["value"], 12.0);
    assert_eq!(size["valueQuantity"]["system"], "http://unitsofmeasure.org");
    // format=fhir says the same; format wins over Accept; an unknown format names the three.
    let by_format = json_of(&get(&format!("{TR4_12MM}&format=fhir")));
    assert_eq!(by_format, b);
    let json = send(
        Request::new(Method::Get, &format!("{TR4_12MM}&format=json"))
            .with_header("accept", "application/fhir+json"),
    );
    assert!(json
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let bad = get(&format!("{TR4_12MM}&format=hl7"));
    assert_eq!(bad.status, 400);
    assert!(error_of(&bad).contains("json, markdown, fhir"));
    // The CodeSystem the codings name: one per system and version.
    let cs = json_of(&get("/api/v1/fhir/CodeSystem/acr-ti-rads-2017"));
    assert_eq!(cs["resourceType"], "CodeSystem");
    assert_eq!(cs["url"], system);
    assert_eq!(cs["version"], "2017");
    let codes: Vec<&str> = cs["concept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    for code in ["TR4", "unit:tirads_level", "input:composition=solid"] {
        assert!(codes.contains(&code), "{code}");
    }
    assert_eq!(get("/api/v1/fhir/CodeSystem/ti-rads").status, 404);
}

#[test]
fn fhir_carries_the_confirmed_snomed_code_of_a_category() {
    let b = json_of(&post(
        "/api/v1/systems/acr-bi-rads-2013/evaluate?format=fhir",
        &json!({"inputs": {"modality": "mammography", "assessment": "0", "mammo_composition": "c"}}),
    ));
    let codings: Vec<&Value> = b["entry"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["resource"]["valueCodeableConcept"]["coding"].as_array())
        .flatten()
        .collect();
    assert!(
        codings
            .iter()
            .any(|c| c["system"] == "http://snomed.info/sct" && c["code"] == "397138000"),
        "{codings:?}"
    );
}
