//! Grounded context over HTTP: keys, parameters, body limits, JSON and markdown.

use crate::support::send;

/// Keys loaded by `make test` from tests/fixtures/keys.sql.
const CONTEXT_KEY: &str = "rr_testctx1_contextKeyForIntegrationTests1";
const NO_SCOPE_KEY: &str = "rr_testnone_noScopeKeyForIntegrationTests1";
const REVOKED_KEY: &str = "rr_testrevk_revokedKeyForIntegrationTests1";

fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

#[test]
fn a_key_is_required() {
    let path = "/api/v1/context?q=incidental%20lung%20nodule";
    let missing = send("GET", path, &[], None);
    assert_eq!(missing.status, 401);
    assert!(missing.json()["error"].is_string());
    for key in [
        "rr_nobody01_notARealKeyButWellFormed000",
        "garbage",
        REVOKED_KEY,
    ] {
        let reply = send("GET", path, &[("X-API-Key", key)], None);
        assert_eq!(reply.status, 401, "{key}");
        assert!(!reply.body.contains(key), "the key is never echoed");
    }
    let wrong_scope = send(
        "GET",
        path,
        &[("Authorization", &bearer(NO_SCOPE_KEY))],
        None,
    );
    assert_eq!(wrong_scope.status, 403);
    let preflight = send(
        "OPTIONS",
        "/api/v1/context",
        &[
            ("Origin", "https://app.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
        None,
    );
    assert_eq!(preflight.status, 204, "preflight needs no key");
}

#[test]
fn json_context_ranks_cited_systems() {
    let reply = send(
        "GET",
        "/api/v1/context?q=incidental%2012%20mm%20thyroid%20nodule%20on%20chest%20CT&verified=false",
        &[("Authorization", &bearer(CONTEXT_KEY))],
        None,
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.header("cache-control"), Some("private, no-store"));
    let body = reply.json();
    assert!(body["notice"]
        .as_str()
        .unwrap()
        .contains("not a medical device"));
    let systems = body["systems"].as_array().unwrap();
    assert!(!systems.is_empty() && systems.len() <= 4);
    assert_eq!(systems[0]["slug"], "acr-if-thyroid-2015");
    assert!(systems[0]["why"]["score"].as_f64().unwrap() > 0.0);
    assert!(!systems[0]["why"]["reasons"].as_array().unwrap().is_empty());
    let outcome = &systems[0]["outcomes"][0];
    for key in ["text", "citation", "locator", "consensus", "verification"] {
        assert!(outcome["definition"][key].is_string(), "{key}");
    }
    let citation = outcome["definition"]["citation"].as_str().unwrap();
    assert!(systems[0]["references"][citation].is_string());
    assert!(systems[0]["missing_inputs"].is_array());
    assert_eq!(body["finding"]["sizes_mm"][0], 12.0);
}

#[test]
fn verified_default_withholds_draft_lines() {
    let reply = send(
        "GET",
        "/api/v1/context?q=bosniak%20IIF%20renal%20cyst",
        &[("X-API-Key", CONTEXT_KEY)],
        None,
    );
    assert_eq!(reply.status, 200);
    let first = &reply.json()["systems"][0];
    assert_eq!(first["status"], "current");
    assert!(first["withheld_draft_lines"].as_u64().unwrap() > 0);
    assert!(first["withheld_note"]
        .as_str()
        .unwrap()
        .contains("verified=false"));
}

#[test]
fn post_with_markdown_and_forced_systems() {
    let body = br#"{"text": "8 mm solid nodule in a smoker", "systems": ["bts-pulmonary-nodules-2015"], "limit": 2, "format": "markdown", "verified": false}"#;
    let reply = send(
        "POST",
        "/api/v1/context",
        &[
            ("Authorization", &bearer(CONTEXT_KEY)),
            ("Content-Type", "application/json"),
        ],
        Some(body),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("text/markdown"));
    let md = &reply.body;
    assert!(md.starts_with("## radref grounded context"));
    assert!(
        md.contains("`bts-pulmonary-nodules-2015`"),
        "forced system included"
    );
    assert!(md.contains("(draft)"));
    assert!(md.contains("References:"));
    let tokens: usize = reply.header("x-approx-tokens").unwrap().parse().unwrap();
    assert!(tokens > 50);
}

#[test]
fn bad_requests_name_the_parameter() {
    let auth = [("X-API-Key", CONTEXT_KEY)];
    let long_q = format!("/api/v1/context?q={}", "a".repeat(1_001));
    for (path, param) in [
        ("/api/v1/context?q=nodule&limit=9", "limit"),
        ("/api/v1/context?q=nodule&limit=0", "limit"),
        ("/api/v1/context?q=nodule&limit=two", "limit"),
        ("/api/v1/context?q=nodule&format=html", "format"),
        ("/api/v1/context?q=nodule&verified=maybe", "verified"),
        ("/api/v1/context?q=nodule&organ=elbow", "organ"),
        (long_q.as_str(), "POST"),
        ("/api/v1/context?systems=no-such-system", "no-such-system"),
        ("/api/v1/context?systems=&q=", "empty slug"),
        (
            "/api/v1/context?q=nodule&systems=fleischner-2017,,acr-ti-rads-2017",
            "empty slug",
        ),
    ] {
        let reply = send("GET", path, &auth, None);
        assert_eq!(reply.status, 400, "{path}");
        let msg = reply.json()["error"].as_str().unwrap().to_string();
        assert!(msg.contains(param), "{path}: {msg}");
    }
}

#[test]
fn an_empty_request_grounds_nothing() {
    let reply = send(
        "GET",
        "/api/v1/context",
        &[("X-API-Key", CONTEXT_KEY)],
        None,
    );
    assert_eq!(reply.status, 200);
    let body = reply.json();
    assert_eq!(body["systems"], serde_json::json!([]));
    assert!(body["note"].as_str().unwrap().contains("nothing to ground"));
}

#[test]
fn post_body_rules() {
    let json = [
        ("X-API-Key", CONTEXT_KEY),
        ("Content-Type", "application/json"),
    ];
    let not_json = send(
        "POST",
        "/api/v1/context",
        &[("X-API-Key", CONTEXT_KEY), ("Content-Type", "text/plain")],
        Some(b"nodule"),
    );
    assert_eq!(not_json.status, 400);
    let malformed = send("POST", "/api/v1/context", &json, Some(b"{\"text\": "));
    assert_eq!(malformed.status, 400);
    let unknown_field = send(
        "POST",
        "/api/v1/context",
        &json,
        Some(b"{\"txt\": \"nodule\"}"),
    );
    assert_eq!(unknown_field.status, 400);
    assert!(unknown_field.json()["error"]
        .as_str()
        .unwrap()
        .contains("txt"));
    let long_text = format!(
        "{{\"text\": \"{}\"}}",
        "a".repeat(radref::context::MAX_TEXT_CHARS + 1)
    );
    let refused = send("POST", "/api/v1/context", &json, Some(long_text.as_bytes()));
    assert_eq!(refused.status, 400, "over-long text is named, not sized");
    assert!(refused.json()["error"].as_str().unwrap().contains("text"));
    let huge = format!("{{\"text\": \"{}\"}}", "a".repeat(270_000));
    let too_large = send("POST", "/api/v1/context", &json, Some(huge.as_bytes()));
    assert_eq!(too_large.status, 413);
    assert!(too_large.json()["error"].is_string());
}

#[test]
fn mcp_endpoint_speaks_streamable_http() {
    let get = send("GET", "/mcp", &[("Accept", "text/event-stream")], None);
    assert_eq!(get.status, 405, "no server-initiated stream");
    assert_eq!(get.header("allow"), Some("POST"));
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}"#;
    let reply = send(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        Some(init),
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"]["protocolVersion"], "2025-06-18");
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let accepted = send(
        "POST",
        "/mcp",
        &[("Content-Type", "application/json")],
        Some(note),
    );
    assert_eq!(accepted.status, 202);
    let bad_version = send(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        Some(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
    );
    assert_eq!(bad_version.status, 400);
}

#[test]
fn a_list_of_systems_is_bounded() {
    let many = vec!["fleischner-2017"; radref::context::MAX_SYSTEMS + 1].join(",");
    let reply = send(
        "GET",
        &format!("/api/v1/context?systems={many}"),
        &[("Authorization", &bearer(CONTEXT_KEY))],
        None,
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.json()["error"]
        .as_str()
        .unwrap_or_default()
        .contains("'systems'"));
}

/// A context answer's evaluate link, followed as a client would: no key, a 200 evaluation whose
/// missing inputs are the ones the context listed, and the units it said were decided.
#[test]
fn the_evaluate_link_of_a_context_answer_is_followed() {
    for (text, slug) in [
        (
            "TI-RADS TR4 nodule measuring 1.6 cm, solid, hypoechoic",
            "acr-ti-rads-2017",
        ),
        (
            "Per Fleischner: 1.2 cm part-solid nodule with a 4 mm solid component in a 64-year-old",
            "fleischner-2017",
        ),
    ] {
        let body = serde_json::json!({ "text": text, "verified": false, "limit": 2 }).to_string();
        let reply = send(
            "POST",
            "/api/v1/context",
            &[
                ("X-API-Key", CONTEXT_KEY),
                ("Content-Type", "application/json"),
            ],
            Some(body.as_bytes()),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        let context = reply.json();
        let system = &context["systems"][0];
        assert_eq!(system["slug"], slug, "a named system ranks first");
        let link = system["links"]["evaluate"].as_str().unwrap();
        assert!(
            link.starts_with(&format!("/api/v1/systems/{slug}/evaluate?")),
            "{link}"
        );
        let evaluation = send("GET", link, &[], None);
        assert_eq!(evaluation.status, 200, "{link}: {}", evaluation.body);
        let evaluation = evaluation.json();
        let listed: Vec<&serde_json::Value> = system["missing_inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| &i["id"])
            .collect();
        let missing: Vec<&serde_json::Value> =
            evaluation["missing"].as_array().unwrap().iter().collect();
        assert_eq!(listed, missing, "{link}");
        assert_eq!(
            evaluation["links"]["self"], link,
            "the link is the evaluation's own"
        );
        for d in system["decided"].as_array().unwrap() {
            let unit = evaluation["units"]
                .as_array()
                .unwrap()
                .iter()
                .find(|u| u["id"] == d["unit"])
                .unwrap();
            assert_eq!(unit["status"], "decided", "{}", d["unit"]);
        }
    }
    // The Fleischner link carries both sizes in millimetres and the age.
    let reply = send(
        "GET",
        "/api/v1/context?q=Fleischner%201.2%20cm%20solid%20nodule&verified=false&limit=1",
        &[("X-API-Key", CONTEXT_KEY)],
        None,
    );
    let link = reply.json()["systems"][0]["links"]["evaluate"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(link.contains("size_mm=12"), "{link}");
}

/// A trauma CT report that negates most organs, over HTTP and through the MCP tool: the
/// splenic laceration is grounded in AAST, what the report rules out pulls in no guideline,
/// and each ruled-out phrase comes back with the span of the submitted text it was read from.
#[test]
fn a_report_grounds_what_it_asserts_over_http_and_mcp() {
    let report = include_str!("fixtures/trauma_report.txt");
    let body = serde_json::json!({ "text": report, "verified": false });
    let reply = send(
        "POST",
        "/api/v1/context",
        &[
            ("Authorization", &bearer(CONTEXT_KEY)),
            ("Content-Type", "application/json"),
        ],
        Some(body.to_string().as_bytes()),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let http = reply.json();
    let slugs = |answer: &serde_json::Value| -> Vec<String> {
        answer["systems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["slug"].as_str().unwrap().to_string())
            .collect()
    };
    let offered = slugs(&http);
    assert_eq!(offered[0], "aast-ois-2018", "{offered:?}");
    for ruled_out in [
        "fleischner-2017",
        "sru-gallbladder-polyps-2022",
        "kyoto-ipmn-2024",
        "acr-if-pancreatic-cyst-2017",
        "acr-if-adrenal-2017",
    ] {
        assert!(
            !offered.iter().any(|s| s == ruled_out),
            "{ruled_out}: {offered:?}"
        );
    }
    let ruled = http["finding"]["ruled_out"].as_array().unwrap();
    assert!(ruled.len() >= 10, "{ruled:?}");
    for r in ruled {
        assert_eq!(
            spanned(report, &r["span"]),
            r["text"].as_str().unwrap(),
            "{r}"
        );
    }
    assert!(ruled.iter().any(|r| r["text"]
        == "pulmonary nodules, consolidation or pleural effusion"
        && r["assertion"] == "negated"));
    // Its findings: the splenic laceration of the impression first, grounded in AAST.
    let findings = http["findings"].as_array().unwrap();
    assert_eq!(findings[0]["section"], "impression");
    assert_eq!(findings[0]["systems"][0]["slug"], "aast-ois-2018");
    assert_eq!(
        spanned(report, &findings[0]["span"]),
        findings[0]["text"].as_str().unwrap()
    );
    // The tool answers the same.
    let call = serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "radref_ground", "arguments": { "text": report, "verified": false } } });
    let reply = send(
        "POST",
        "/mcp",
        &[("Content-Type", "application/json")],
        Some(call.to_string().as_bytes()),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let tool = reply.json()["result"]["structuredContent"].clone();
    assert_eq!(slugs(&tool), offered);
    assert_eq!(tool["finding"]["ruled_out"], http["finding"]["ruled_out"]);
    assert_eq!(tool["findings"], http["findings"]);
    assert!(tool["markdown"]
        .as_str()
        .unwrap()
        .contains("Ruled out by the text"));
}

/// A whole report over HTTP: its setting read from the history and applied to the findings,
/// each system's cited reasons, the compact and full answers, and a markdown block within the
/// asked budget that names what it left out.
#[test]
fn a_report_is_grounded_per_finding_with_its_setting_and_budget() {
    let report = include_str!("fixtures/reports/06-mri-liver-cirrhosis-lirads.txt");
    let post = |body: serde_json::Value| post_context(&body);
    let reply = post(serde_json::json!({ "text": report, "verified": false }));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let compact = reply.json();
    let setting = &compact["setting"];
    assert!(setting["settings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s == "hcc_risk"));
    for read in setting["read"].as_array().unwrap() {
        assert_eq!(
            spanned(report, &read["span"]),
            read["text"].as_str().unwrap()
        );
    }
    // The LR-5 observation is governed by LI-RADS, for the cirrhosis its history states, and
    // the reason is the system's cited population line.
    let findings = compact["findings"].as_array().unwrap();
    let lr5 = findings
        .iter()
        .find(|f| f["text"].as_str().unwrap().contains("LR-5"))
        .expect("the LR-5 observation");
    let first = &lr5["systems"][0];
    assert_eq!(first["slug"], "acr-li-rads-ct-mri-v2018");
    let because = first["because"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["cue"] == "HCC risk")
        .expect("the HCC-risk cue");
    assert!(because["line"]["text"]
        .as_str()
        .unwrap()
        .contains("cirrhosis"));
    // Its reference is given once per answer, by system and id.
    let id = because["line"]["citation"].as_str().unwrap();
    assert!(
        compact["cue_references"]["acr-li-rads-ct-mri-v2018"][id]
            .as_str()
            .unwrap()
            .len()
            > 20
    );
    // Ruled-out lines are findings too, with no system.
    assert!(findings
        .iter()
        .any(|f| f["assertion"] == "absent" && f["systems"].as_array().unwrap().is_empty()));
    // detail=full carries more of each system than the compact default.
    let full = post(serde_json::json!({ "text": report, "verified": false, "detail": "full" }));
    assert_eq!(full.status, 200);
    assert!(full.body.len() > reply.body.len());
    assert_eq!(full.json()["query"]["detail"], "full");
    // A small budget: the block stays within it and names what it left out.
    let md = post(
        serde_json::json!({ "text": report, "verified": false, "format": "markdown", "max_tokens": 600 }),
    );
    assert_eq!(md.status, 200);
    let tokens: usize = md.header("x-approx-tokens").unwrap().parse().unwrap();
    assert!(tokens <= 600, "{tokens}");
    assert!(
        md.body
            .contains("Not shown within the budget of 600 tokens"),
        "{}",
        md.body
    );
    // A budget out of range is refused by name.
    let bad = post(serde_json::json!({ "text": report, "max_tokens": 10 }));
    assert_eq!(bad.status, 400);
    assert!(bad.json()["error"].as_str().unwrap().contains("max_tokens"));
}

/// POSTs `body` to the context route with the test key, from an address of its own.
fn post_context(body: &serde_json::Value) -> crate::support::Reply {
    send(
        "POST",
        "/api/v1/context",
        &[
            ("Authorization", &bearer(CONTEXT_KEY)),
            ("Content-Type", "application/json"),
            ("CF-Connecting-IP", &crate::support::fresh_ip()),
        ],
        Some(body.to_string().as_bytes()),
    )
}

/// Over HTTP, a report's systems are filled in from the finding that offers each, and say
/// which: the adrenal paper reads the 1.9 cm adrenal nodule, not the report's other sizes, and
/// its evaluate link carries that size.
#[test]
fn a_reports_systems_are_filled_in_from_their_own_findings() {
    let report = include_str!("fixtures/reports/31-ct-ap-diverticulitis-aaa-incidentals.txt");
    let body = serde_json::json!({ "text": report, "verified": false, "format": "markdown",
        "max_tokens": 16000 });
    let reply = post_context(&body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let markdown = reply.body;
    let call = serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "radref_ground", "arguments": { "text": report, "verified": false } } });
    let reply = send(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("CF-Connecting-IP", &crate::support::fresh_ip()),
        ],
        Some(call.to_string().as_bytes()),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = reply.json()["result"]["structuredContent"].clone();
    let adrenal = answer["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == "acr-if-adrenal-2017")
        .expect("the adrenal paper is offered")
        .clone();
    assert_eq!(adrenal["prefilled"]["size_cm"], 1.9, "{adrenal}");
    let span = &adrenal["prefilled_from"];
    let source = answer["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| &f["span"] == span)
        .expect("prefilled_from is a finding's span");
    let text = source["text"].as_str().unwrap();
    assert!(text.contains("1.9 cm left adrenal nodule"), "{text}");
    assert!(source["systems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["slug"] == "acr-if-adrenal-2017"));
    let link = adrenal["links"]["evaluate"].as_str().unwrap();
    assert!(link.contains("size_cm=1.9"), "{link}");
    // The markdown block quotes the finding it filled the system in from.
    let quoted = format!("(what the finding \"{}", &text[..30]);
    assert!(
        markdown
            .lines()
            .any(|l| l.contains("/systems/acr-if-adrenal-2017/evaluate")
                && l.contains(&quoted)
                && l.contains("filled in")),
        "{markdown}"
    );
}

/// The answer for a report, as JSON, every entry included (`verified=false`).
fn grounded(report: &str) -> serde_json::Value {
    let body = serde_json::json!({ "text": report, "verified": false });
    let reply = post_context(&body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

/// The first finding of `answer` whose text holds `text`.
fn finding_with<'a>(answer: &'a serde_json::Value, text: &str) -> &'a serde_json::Value {
    answer["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["text"].as_str().unwrap().contains(text))
        .unwrap_or_else(|| panic!("no finding with {text:?}"))
}

/// The input `id` a finding's evaluation reads, if it reads it.
fn input_read<'a>(finding: &'a serde_json::Value, id: &str) -> Option<&'a serde_json::Value> {
    finding["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id)
}

/// The characters of `text` a `[start, end)` span of the answer points at.
fn spanned(text: &str, span: &serde_json::Value) -> String {
    let at = |k: usize| span[k].as_u64().unwrap() as usize;
    text.chars().skip(at(0)).take(at(1) - at(0)).collect()
}

/// Over HTTP, what a report's clinical history states about the patient reaches its findings:
/// the ovarian cyst's O-RADS evaluation reads the menopausal status from the history, with the
/// history's words.
#[test]
fn the_history_states_the_patient_for_each_finding_over_http() {
    let report = include_str!("fixtures/reports/11-us-pelvis-adnexal-orads.txt");
    let answer = grounded(report);
    let cyst = finding_with(&answer, "4.6 cm unilocular left ovarian cyst");
    assert_eq!(cyst["systems"][0]["slug"], "acr-o-rads-us-v2022");
    let status = input_read(cyst, "menopausal_status").expect("the menopausal status is read");
    assert_eq!(status["value"], "postmenopausal");
    assert_eq!(spanned(report, &status["span"]), "postmenopausal");
    assert!(status["span"][1].as_u64().unwrap() < report.find("TECHNIQUE").unwrap() as u64);
    assert!(cyst["evaluation"]["link"]
        .as_str()
        .unwrap()
        .contains("menopausal_status=postmenopausal"));
}

/// Over HTTP, a cancer the clinical history states, even in the past ("History of breast
/// cancer treated in 2015"), fills the adrenal papers' `cancer_history` for the adrenal
/// nodule, with the history's words; the relative's cancer in the same history does not count
/// on its own.
#[test]
fn a_cancer_the_history_states_fills_the_adrenal_cancer_history_over_http() {
    let report = |history: &str| {
        format!(
            "CT ABDOMEN AND PELVIS WITH IV CONTRAST\n\nCLINICAL HISTORY: 63-year-old woman with \
             right lower quadrant pain for 2 days. {history}\n\nTECHNIQUE: Portal venous \
             phase.\n\nFINDINGS:\nLiver: Normal.\nAdrenals: 2.1 x 1.8 cm left adrenal nodule \
             measuring 35 HU on this portal venous study. Right adrenal normal.\nKidneys: No \
             hydronephrosis.\n\nIMPRESSION:\n1. Indeterminate 2.1 cm left adrenal nodule.\n"
        )
    };
    let cancer_history = |text: &str| -> Option<serde_json::Value> {
        let answer = grounded(text);
        let nodule = finding_with(&answer, "2.1 cm left adrenal nodule");
        let slug = nodule["systems"][0]["slug"].as_str().unwrap();
        assert!(slug.contains("adrenal"), "{slug}");
        let read = input_read(nodule, "cancer_history").cloned();
        if read.is_some() {
            let link = nodule["evaluation"]["link"].as_str().unwrap();
            assert!(link.contains("cancer_history=true"), "{link}");
        }
        read
    };
    let text = report("History of breast cancer treated in 2015. Mother with ovarian cancer.");
    let read = cancer_history(&text).expect("the history's cancer is read");
    assert_eq!(read["value"], true);
    assert_eq!(read["text"], "breast cancer");
    assert_eq!(spanned(&text, &read["span"]), "breast cancer");
    assert!(cancer_history(&report("Mother with ovarian cancer.")).is_none());
    assert!(cancer_history(&report("No personal history of malignancy.")).is_none());
}

/// Over HTTP, the size of a nodule written as a chest report writes it ("5 mm solid right
/// middle lobe nodule", the noun five words after the size) is Fleischner's `size_mm`, and in
/// a follow-up the current size is read, not the earlier one ("grown from 6 mm to 9 mm").
#[test]
fn a_nodule_size_is_read_as_chest_reports_write_it_over_http() {
    let size_of = |report: &str, finding: &str| -> Option<f64> {
        let answer = grounded(report);
        let found = finding_with(&answer, finding);
        assert_eq!(found["systems"][0]["slug"], "fleischner-2017", "{found}");
        input_read(found, "size_mm").and_then(|i| i["value"].as_f64())
    };
    let report = include_str!("fixtures/reports/19-ccta-cad-rads-incidental-nodule.txt");
    assert_eq!(
        size_of(report, "Incidental 5 mm solid right middle lobe nodule"),
        Some(5.0)
    );
    let follow_up = "CT CHEST WITHOUT CONTRAST\n\nCLINICAL HISTORY: 61-year-old man, former \
                     smoker, follow-up of a lung nodule.\n\nFINDINGS:\nLungs: The right upper \
                     lobe solid nodule has grown from 6 mm to 9 mm. No new nodules.\n\n\
                     IMPRESSION:\n1. Right upper lobe solid nodule, grown from 6 mm to 9 mm.\n";
    assert_eq!(size_of(follow_up, "grown from 6 mm to 9 mm"), Some(9.0));
    // What a trigger within the sentence rules out ends at a measurement verb, so the size
    // after it is the nodule's.
    let without = "CT CHEST\n\nFINDINGS:\nLungs: Right upper lobe solid nodule without \
                   calcification measuring 9 mm.\n";
    assert_eq!(size_of(without, "without calcification"), Some(9.0));
}

/// Over HTTP, an input the finding rules out whole is read: a multi as none of its values
/// (fixture 05's first nodule, "no echogenic foci", is scored TR4 from its own points, and the
/// report's TI-RADS is read on it; a pancreatic cyst "without worrisome features" has none of
/// Kyoto's), a boolean as false (a renal cystic mass "without enhancing nodule").
#[test]
fn a_finding_that_rules_out_an_input_reads_it_over_http() {
    let report = include_str!("fixtures/reports/05-us-thyroid-tirads.txt");
    let answer = grounded(report);
    let nodule = finding_with(&answer, "Right lobe, mid to lower pole");
    let foci = input_read(nodule, "echogenic_foci").unwrap_or_else(|| panic!("{nodule}"));
    assert_eq!(
        foci["value"],
        serde_json::json!(["none_or_large_comet_tail"])
    );
    assert_eq!(spanned(report, &foci["span"]), "no echogenic foci");
    let decided = nodule["evaluation"]["decided"].as_array().unwrap();
    let level = decided.iter().find(|d| d["unit"] == "tirads_level");
    assert!(
        level.is_some_and(|d| d["answer"].as_str().unwrap().starts_with("TR4")),
        "{nodule}"
    );
    let tirads = answer["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == "acr-ti-rads-2017")
        .unwrap();
    assert_eq!(tirads["prefilled"]["max_diameter_mm"], 18.0, "{tirads}");
    let cyst = "MRCP\n\nFINDINGS:\nPancreas: 1.2 cm side-branch IPMN in the pancreatic tail, \
                without worrisome features or high-risk stigmata.\n";
    let answer = grounded(cyst);
    let lesion = finding_with(&answer, "1.2 cm side-branch IPMN");
    assert_eq!(lesion["systems"][0]["slug"], "kyoto-ipmn-2024", "{lesion}");
    let other = input_read(lesion, "wf_other").unwrap_or_else(|| panic!("{lesion}"));
    assert_eq!(other["value"], serde_json::json!([]));
    assert_eq!(spanned(cyst, &other["span"]), "without worrisome features");
    // A boolean the finding rules out is false.
    let renal = "CT ABDOMEN WITH AND WITHOUT CONTRAST\n\nFINDINGS:\nKidneys: 3.4 cm left renal \
                 cystic mass with two thin smooth septa, without enhancing nodule.\n";
    let answer = grounded(renal);
    let mass = finding_with(&answer, "3.4 cm left renal cystic mass");
    assert_eq!(mass["systems"][0]["slug"], "bosniak-v2019", "{mass}");
    let nodule = input_read(mass, "enhancing_nodule").unwrap_or_else(|| panic!("{mass}"));
    assert_eq!(nodule["value"], false);
    assert_eq!(spanned(renal, &nodule["span"]), "without enhancing nodule");
}

/// An attenuation stated in a report of an examination without contrast is an unenhanced
/// one: ACR's adrenal paper reads it and decides; with a contrast phase it is not read.
#[test]
fn an_attenuation_in_an_examination_without_contrast_is_unenhanced_over_http() {
    let body = "\nTECHNIQUE: Axial images of the chest.\n\nFINDINGS:\nLungs: Clear.\nUpper \
                abdomen: 1.4 cm left adrenal nodule measuring 8 HU, likely an adenoma.\n";
    let report = format!("CT CHEST WITHOUT CONTRAST\n{body}");
    let answer = grounded(&report);
    let nodule = finding_with(&answer, "left adrenal nodule");
    assert_eq!(
        nodule["systems"][0]["slug"], "acr-if-adrenal-2017",
        "{nodule}"
    );
    let hu = input_read(nodule, "unenhanced_hu").unwrap_or_else(|| panic!("{nodule}"));
    assert_eq!(hu["value"], 8.0);
    assert_eq!(spanned(&report, &hu["span"]), "8 HU");
    let decided = nodule["evaluation"]["decided"].as_array().unwrap();
    assert!(
        decided
            .iter()
            .any(|d| d["answer"].as_str().unwrap().starts_with("benign")),
        "{nodule}"
    );
    for title in [
        "CT CHEST WITH CONTRAST",
        "CT CHEST WITHOUT AND WITH CONTRAST",
    ] {
        let report = format!("{title}\n{body}");
        let answer = grounded(&report);
        let nodule = finding_with(&answer, "left adrenal nodule");
        assert!(
            input_read(nodule, "unenhanced_hu").is_none(),
            "{title}: {nodule}"
        );
    }
}

/// A change set off by a comma after what "no" rules out is the finding's: its size is read.
#[test]
fn a_size_change_after_a_ruled_out_feature_is_read_over_http() {
    let report = "THYROID ULTRASOUND\n\nFINDINGS:\nRight lobe: Solid hypoechoic nodule in the \
                  lower pole with smooth margins and no echogenic foci, increased from 1.1 cm \
                  to 1.6 cm since the prior study.\nLeft lobe: No nodules.\n";
    let answer = grounded(report);
    let nodule = finding_with(&answer, "Solid hypoechoic nodule");
    assert_eq!(nodule["systems"][0]["slug"], "acr-ti-rads-2017", "{nodule}");
    let size = input_read(nodule, "max_diameter_mm").unwrap_or_else(|| panic!("{nodule}"));
    assert_eq!(size["value"], 16.0, "{nodule}");
    let foci = input_read(nodule, "echogenic_foci").unwrap_or_else(|| panic!("{nodule}"));
    assert_eq!(spanned(report, &foci["span"]), "no echogenic foci");
    let ruled: Vec<&str> = answer["finding"]["ruled_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert!(ruled.contains(&"echogenic foci"), "{ruled:?}");
    assert!(!ruled.iter().any(|r| r.contains("1.6")), "{ruled:?}");
}

/// Over HTTP, a sex letter written after the age ("61 y/o F") states the patient's sex, with
/// its words, and a unit that only points to another ("See solid nodules") is not among what a
/// solid nodule's Fleischner evaluation decides.
#[test]
fn the_age_letter_states_the_sex_and_a_deferring_unit_is_left_out_over_http() {
    let report = "CT CHEST WITHOUT CONTRAST\n\nHISTORY: 61 y/o F, former smoker, cough.\n\n\
                  FINDINGS:\nLungs: 7 mm solid nodule in the RUL. No consolidation.\n\n\
                  IMPRESSION:\n1. 7 mm RUL nodule.\n";
    let answer = grounded(report);
    let setting = &answer["setting"];
    assert_eq!(setting["sex"], "female", "{setting}");
    assert_eq!(setting["age_years"], 61.0);
    let sex = setting["read"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["setting"] == "female")
        .expect("where the sex was read");
    assert_eq!(spanned(report, &sex["span"]), "F");
    let nodule = finding_with(&answer, "7 mm solid nodule");
    assert_eq!(nodule["evaluation"]["slug"], "fleischner-2017", "{nodule}");
    let decided = nodule["evaluation"]["decided"].as_array().unwrap();
    assert!(
        decided.iter().all(|d| d["unit"] != "subsolid_nodules"),
        "{decided:?}"
    );
}

/// Over HTTP, a listed multi input is read with every value the finding states: the thyroid
/// nodule's punctate echogenic foci complete TI-RADS's inputs (TR5, FNA), and the liver
/// observation's washout and capsule LI-RADS's major features; Fleischner's exclusions, not
/// listed, are not read from the words.
#[test]
fn a_listed_multi_input_is_read_with_every_value_stated_over_http() {
    let thyroid = "US THYROID\n\nHISTORY: 44F, palpable nodule.\n\nFINDINGS:\nNodule 1: Left mid \
                   pole, solid, hypoechoic, wider-than-tall, smooth margins, with punctate \
                   echogenic foci. Measures 1.9 x 1.4 x 1.2 cm.\n";
    let answer = grounded(thyroid);
    let nodule = finding_with(&answer, "punctate echogenic foci");
    let foci = input_read(nodule, "echogenic_foci").expect("the foci are read");
    assert_eq!(foci["value"], serde_json::json!(["punctate"]));
    assert_eq!(spanned(thyroid, &foci["span"]), "punctate echogenic foci");
    let decided: Vec<&str> = nodule["evaluation"]["decided"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["answer"].as_str().unwrap())
        .collect();
    assert!(decided.iter().any(|a| a.starts_with("TR5")), "{decided:?}");
    assert!(nodule["evaluation"]["link"]
        .as_str()
        .unwrap()
        .contains("echogenic_foci=punctate"));
    let liver = "MRI ABDOMEN\n\nHISTORY: Cirrhosis.\n\nFINDINGS:\nLiver: 2.3 cm segment 8 \
                 observation with nonrim arterial phase hyperenhancement, nonperipheral washout \
                 and an enhancing capsule.\n";
    let answer = grounded(liver);
    let observation = finding_with(&answer, "segment 8 observation");
    let majors = input_read(observation, "additional_major_features").expect("read");
    assert_eq!(
        majors["value"],
        serde_json::json!(["enhancing_capsule", "nonperipheral_washout"])
    );
    let chest = "CT CHEST\n\nFINDINGS:\nLungs: 7 mm solid nodule in the right upper lobe in an \
                 immunocompromised patient with a known primary cancer.\n";
    let answer = grounded(chest);
    let nodule = finding_with(&answer, "7 mm solid nodule");
    assert!(input_read(nodule, "exclusions").is_none(), "{nodule}");
}

/// Over HTTP, a value several inputs share goes to the one whose label the finding names: a
/// baseline screening's part-solid nodule has Lung-RADS's part-solid timepoint, not the solid
/// one's; a value an earlier examination showed ("unchanged from baseline") is not read.
#[test]
fn a_shared_value_goes_to_the_input_the_finding_names_over_http() {
    let report = "LOW-DOSE CT CHEST\n\nHISTORY: 67-year-old woman, 40 pack-years, lung cancer \
                  screening.\n\nFINDINGS:\nLungs: Baseline 7 mm part-solid nodule in the right \
                  upper lobe with a 3 mm solid component. 5 mm solid nodule in the left lower \
                  lobe, unchanged from baseline.\n";
    let answer = grounded(report);
    let part_solid = finding_with(&answer, "part-solid nodule");
    assert_eq!(part_solid["systems"][0]["slug"], "acr-lung-rads-v2022");
    let status = input_read(part_solid, "ps_status").expect("the timepoint is read");
    assert_eq!(status["value"], "baseline");
    assert!(input_read(part_solid, "solid_status").is_none());
    let solid = finding_with(&answer, "5 mm solid nodule");
    assert!(input_read(solid, "solid_status").is_none(), "{solid}");
    // "new", though short, is read, and goes to the type the finding names.
    let report = report.replace("Baseline 7 mm part-solid", "New 7 mm solid");
    let answer = grounded(&report);
    let new = finding_with(&answer, "New 7 mm solid nodule");
    let status = input_read(new, "solid_status").expect("the timepoint is read");
    assert_eq!(status["value"], "new");
    assert_eq!(spanned(&report, &status["span"]), "New");
}

/// Over HTTP, a percentage written beside the phrase a percentage input is named by
/// (`named_by`) is read: a lumbar spine's "30% anterolisthesis" gives Meyerding's slip and
/// grade II, "slip of 40 percent" the same, and two washouts go each to its own input.
#[test]
fn a_percentage_beside_the_phrase_that_names_it_is_read_over_http() {
    let report = "MRI LUMBAR SPINE WITHOUT CONTRAST\n\nHISTORY: 58F, low back pain.\n\n\
                  FINDINGS:\nAlignment: 30% anterolisthesis of L4 on L5 with bilateral pars \
                  defects.\nVertebrae: Vertebral body heights are maintained.\n\nIMPRESSION:\n\
                  1. Grade 2 spondylolisthesis of L4 on L5, slip of 40 percent.\n";
    let answer = grounded(report);
    for (text, value, quoted) in [
        ("30% anterolisthesis", 30.0, "30% anterolisthesis"),
        ("slip of 40 percent", 40.0, "slip of 40 percent"),
    ] {
        let finding = finding_with(&answer, text);
        assert_eq!(finding["evaluation"]["slug"], "meyerding-1932", "{finding}");
        let slip = input_read(finding, "slip_percent").unwrap_or_else(|| panic!("{finding}"));
        assert_eq!(slip["value"], value, "{finding}");
        assert_eq!(spanned(report, &slip["span"]), quoted);
        let decided = finding["evaluation"]["decided"].as_array().unwrap();
        let grade = decided
            .iter()
            .find(|d| d["unit"] == "grade_from_percent")
            .unwrap_or_else(|| panic!("{decided:?}"));
        assert_eq!(grade["outcome"]["code"], "II", "{grade}");
    }
    let report = "CT ABDOMEN ADRENAL PROTOCOL\n\nFINDINGS:\nAdrenals: 2.1 cm left adrenal \
                  nodule with absolute washout of 65% and relative washout of 45%.\n";
    let answer = grounded(report);
    let nodule = finding_with(&answer, "left adrenal nodule");
    assert_eq!(
        nodule["evaluation"]["slug"], "acr-if-adrenal-2017",
        "{nodule}"
    );
    for (id, value, quoted) in [
        ("absolute_washout_pct", 65.0, "absolute washout of 65%"),
        ("relative_washout_pct", 45.0, "relative washout of 45%"),
    ] {
        let read = input_read(nodule, id).unwrap_or_else(|| panic!("{id}: {nodule}"));
        assert_eq!(read["value"], value, "{nodule}");
        assert_eq!(spanned(report, &read["span"]), quoted);
    }
}

/// Over HTTP, a COMMUNICATION section (who was told what) restates findings and reports none:
/// "The new liver lesion was discussed ..." is no finding, and the lesion itself, reported in
/// the findings, still is.
#[test]
fn a_communication_section_reports_no_finding_over_http() {
    let report = "CT ABDOMEN AND PELVIS WITH CONTRAST\n\nHISTORY: Colorectal cancer follow-up.\n\n\
                  FINDINGS:\nLiver: A new 11 mm hypoattenuating lesion in segment 8.\n\n\
                  IMPRESSION:\n1. New 11 mm segment 8 liver lesion, indeterminate.\n\n\
                  COMMUNICATION: The new liver lesion was discussed by telephone with the \
                  referring nurse specialist on the day of reporting.\n";
    let texts = finding_texts(&grounded(report));
    assert!(
        texts
            .iter()
            .any(|t| t.contains("11 mm hypoattenuating lesion")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains("discussed")), "{texts:?}");
    // Without the heading the same line is read as a finding, so the heading is what counts.
    let texts = finding_texts(&grounded(&report.replace("COMMUNICATION: ", "")));
    assert!(texts.iter().any(|t| t.contains("discussed")), "{texts:?}");
}

/// The text of each finding of a grounded answer, in its order.
fn finding_texts(answer: &serde_json::Value) -> Vec<String> {
    answer["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap().to_string())
        .collect()
}

/// Over HTTP, a boolean input the corpus names by report phrases (`named_by`) is read true
/// where a finding states it, false where the finding rules it out, and not at all where the
/// finding hedges it.
#[test]
fn a_named_flag_is_read_true_only_where_stated_unhedged_over_http() {
    let report = |tail: &str| {
        format!(
            "MRI ABDOMEN WITH AND WITHOUT CONTRAST\n\nFINDINGS:\nKidneys: 3.1 cm cystic mass in \
             the left kidney with thin septa{tail}.\n"
        )
    };
    let stated = report(" and an enhancing nodule");
    let answer = grounded(&stated);
    let mass = finding_with(&answer, "cystic mass");
    assert_eq!(mass["evaluation"]["slug"], "bosniak-v2019", "{mass}");
    let nodule = input_read(mass, "enhancing_nodule").unwrap_or_else(|| panic!("{mass}"));
    assert_eq!(nodule["value"], true, "{mass}");
    assert_eq!(spanned(&stated, &nodule["span"]), "enhancing nodule");
    // A sized mural nodule after "and" is the mass's part (`part_words`), not a finding of its
    // own, so the mass's Bosniak reads it.
    let sized = report(" and a 5 mm enhancing mural nodule");
    let answer = grounded(&sized);
    let mass = finding_with(&answer, "cystic mass");
    assert!(
        mass["text"].as_str().unwrap().ends_with("mural nodule"),
        "{mass}"
    );
    let nodule = input_read(mass, "enhancing_nodule").unwrap_or_else(|| panic!("{mass}"));
    assert_eq!(nodule["value"], true, "{mass}");
    let answer = grounded(&report(" and no enhancing nodule"));
    let mass = finding_with(&answer, "cystic mass");
    let nodule = input_read(mass, "enhancing_nodule").unwrap_or_else(|| panic!("{mass}"));
    assert_eq!(nodule["value"], false, "{mass}");
    for hedge in [
        "; a possible enhancing nodule",
        "; an enhancing nodule cannot be excluded",
    ] {
        let answer = grounded(&report(hedge));
        for finding in answer["findings"].as_array().unwrap() {
            let mut read = finding["inputs"].as_array().into_iter().flatten();
            assert!(
                read.all(|i| i["id"] != "enhancing_nodule"),
                "{hedge}: {finding}"
            );
        }
    }
}

/// Over HTTP, an input named by its label and followed by its value ("DWI score 4", "DCE
/// positive") is read, so a prostate MRI lesion is given its PI-RADS category.
#[test]
fn a_label_followed_by_its_value_is_read_over_http() {
    let report = "MRI PROSTATE WITH AND WITHOUT CONTRAST\n\nFINDINGS:\nLesion 1: Left \
                  posterolateral peripheral zone at the mid gland, 1.3 cm, markedly hypointense \
                  on ADC with marked hyperintensity on high b-value DWI (DWI score 4), DCE \
                  positive.\n";
    let answer = grounded(report);
    let lesion = finding_with(&answer, "peripheral zone");
    assert_eq!(
        lesion["evaluation"]["slug"], "pi-rads-v2-1-2019",
        "{lesion}"
    );
    let dwi = input_read(lesion, "dwi_score").unwrap_or_else(|| panic!("{lesion}"));
    assert_eq!(dwi["value"], "4", "{lesion}");
    assert_eq!(spanned(report, &dwi["span"]), "DWI score 4");
    let dce = input_read(lesion, "dce").unwrap_or_else(|| panic!("{lesion}"));
    assert_eq!(dce["value"], "positive", "{lesion}");
    let decided = lesion["evaluation"]["decided"].as_array().unwrap();
    assert!(
        decided.iter().any(|d| d["outcome"]["code"] == "PI-RADS 4"),
        "{decided:?}"
    );
}

/// Over HTTP, of several attenuations written one per phase, the unenhanced input takes the
/// unenhanced one.
#[test]
fn of_several_attenuations_the_unenhanced_one_is_read_over_http() {
    let report = "CT ABDOMEN ADRENAL PROTOCOL\n\nFINDINGS:\nAdrenals: 2.2 cm left adrenal nodule, \
                  28 HU unenhanced, 95 HU portal venous, 45 HU delayed.\n";
    let answer = grounded(report);
    let nodule = finding_with(&answer, "left adrenal nodule");
    let hu = input_read(nodule, "unenhanced_hu").unwrap_or_else(|| panic!("{nodule}"));
    assert_eq!(hu["value"], 28.0, "{nodule}");
    assert_eq!(spanned(report, &hu["span"]), "28 HU");
}
