//! IHE MRRT report templates over HTTP: import (POST/PUT text/html), export (GET with
//! Accept: text/html), the round trip, refusals of documents that are not templates, the
//! sanitiser on imported bodies, field bindings and evaluating a filled template.

use crate::support::{send, unique};
use serde_json::{json, Value};

const ALICE: &str = "rr_tplalice_templatesKeyAliceIntegration01";
const BOB: &str = "rr_tplbob01_templatesKeyBobIntegration0001";
const THYROID: &str = include_str!("fixtures/mrrt/thyroid-us.html");

fn call(
    key: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> crate::support::Reply {
    let auth = format!("Bearer {key}");
    let mut all = vec![("Authorization", auth.as_str())];
    all.extend_from_slice(headers);
    send(method, path, &all, body)
}

fn import(key: &str, document: &str) -> crate::support::Reply {
    call(
        key,
        "POST",
        "/api/v1/templates",
        &[("Content-Type", "text/html; charset=utf-8")],
        Some(document.as_bytes()),
    )
}

fn json_call(key: &str, method: &str, path: &str, body: Value) -> crate::support::Reply {
    let bytes = body.to_string().into_bytes();
    call(
        key,
        method,
        path,
        &[("Content-Type", "application/json")],
        Some(&bytes),
    )
}

fn export(key: &str, id: &str) -> crate::support::Reply {
    call(
        key,
        "GET",
        &format!("/api/v1/templates/{id}"),
        &[("Accept", "text/html")],
        None,
    )
}

/// The thyroid template with a title of its own, so reruns do not collide.
fn thyroid(title: &str) -> String {
    THYROID.replace("US Thyroid: nodule characterisation (ACR TI-RADS)", title)
}

/// What must survive an export and an import back: every field of the template but its id,
/// owner-only settings, use counts and times.
fn essence(t: &Value) -> Value {
    let mut t = t.clone();
    for key in [
        "id",
        "owned",
        "created_at",
        "updated_at",
        "usage_count",
        "last_used_at",
        "created_by",
        "voice_command",
        "voice_aliases",
        "is_favorite",
        "is_public",
    ] {
        t.as_object_mut().unwrap().remove(key);
    }
    t
}

#[test]
fn an_mrrt_document_imports_as_a_template_with_its_metadata_codes_and_bound_fields() {
    let title = unique("US thyroid import");
    let reply = import(ALICE, &thyroid(&title));
    assert_eq!(reply.status, 201, "{}", reply.body);
    let t = reply.json()["data"].clone();
    assert_eq!(t["name"], title.as_str());
    assert_eq!(
        t["metadata"]["identifier"],
        "urn:example:templates:us-thyroid-tirads:3"
    );
    assert_eq!(t["metadata"]["contributor"].as_array().unwrap().len(), 2);
    assert_eq!(t["metadata"]["status"], "ACTIVE");
    assert_eq!(t["metadata"]["terms"][0]["code"]["value"], "RDES152");
    assert_eq!(t["coded_content"].as_array().unwrap().len(), 5);
    let fields = t["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 14);
    let size = fields.iter().find(|f| f["id"] == "n1_size").unwrap();
    assert_eq!(size["type"], "NUMBER");
    assert_eq!(size["units"], "mm");
    assert_eq!(size["section"], "Nodule 1");
    assert_eq!(size["codes"][0]["value"], "RDE1036");
    assert_eq!(
        size["binding"],
        json!({ "system": "acr-ti-rads-2017", "input": "max_diameter_mm" })
    );
    let composition = fields.iter().find(|f| f["id"] == "n1_composition").unwrap();
    assert_eq!(composition["value"], "solid");
    assert_eq!(composition["options"].as_array().unwrap().len(), 4);
    // The content is the body, sanitised; the head's XML block is data, not markup.
    let content = t["content"].as_str().unwrap();
    assert!(content
        .contains("<section id=\"findings\" class=\"level1\" data-section-name=\"Findings\">"));
    assert!(!content.contains("template_attributes") && !content.contains("<script"));
    assert!(t["content_text"]
        .as_str()
        .unwrap()
        .contains("Composition:\nsolid or almost completely solid"));
}

#[test]
fn export_then_import_gives_the_same_template() {
    // An imported template, and one written as JSON with no MRRT metadata of its own.
    let imported = import(ALICE, &thyroid(&unique("US thyroid round trip"))).json()["data"].clone();
    let written = json_call(
        ALICE,
        "POST",
        "/api/v1/templates",
        json!({
            "name": unique("CT chest routine"),
            "content": "<h2>FINDINGS</h2><p>Lungs: clear.<br>Pleura: no effusion.</p><p>Nodule: <input type=\"number\" id=\"nod\" data-field-units=\"mm\"> mm</p>",
            "exam_type": "CT chest", "modality": "CT", "category": "chest", "subcategory": "routine",
            "tags": ["chest", "routine"], "is_public": true
        }),
    );
    assert_eq!(written.status, 201, "{}", written.body);
    let written = written.json()["data"].clone();
    assert_eq!(
        written["metadata"]["identifier"],
        format!("urn:radref:template:{}", written["id"].as_str().unwrap())
    );
    for original in [imported, written] {
        let id = original["id"].as_str().unwrap();
        let exported = export(ALICE, id);
        assert_eq!(exported.status, 200);
        assert!(exported
            .header("content-type")
            .unwrap()
            .starts_with("text/html"));
        assert!(exported.header("vary").unwrap().contains("Accept"));
        let doc = exported.body;
        // The export is XHTML: an XML parser reads it, in the MRRT head order.
        let xml = roxmltree::Document::parse_with_options(
            &doc,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("export is not well-formed XML ({e}):\n{doc}"));
        let head = xml.root_element().first_element_child().unwrap();
        assert_eq!(head.tag_name().name(), "head");
        assert_eq!(
            head.first_element_child().unwrap().tag_name().name(),
            "title"
        );
        let script = head.children().find(|n| n.has_tag_name("script")).unwrap();
        assert_eq!(script.attribute("type"), Some("text/xml"));
        assert!(script
            .first_element_child()
            .unwrap()
            .has_tag_name("template_attributes"));
        assert!(head
            .children()
            .any(|n| n.attribute("name") == Some("dcterms.title")));
        // Import it back: the same template.
        let back = import(ALICE, &doc);
        assert_eq!(back.status, 201, "{}", back.body);
        let back = back.json()["data"].clone();
        assert_ne!(back["id"], original["id"]);
        assert_eq!(essence(&back), essence(&original), "round trip of {id}");
        // And a second round gives the same document.
        let again = export(ALICE, back["id"].as_str().unwrap()).body;
        assert_eq!(again, doc);
    }
}

#[test]
fn an_import_replaces_a_template_with_put_and_json_still_answers_by_default() {
    let t = json_call(
        ALICE,
        "POST",
        "/api/v1/templates",
        json!({ "name": unique("replace me"), "content": "<p>old</p>" }),
    )
    .json()["data"]
        .clone();
    let id = t["id"].as_str().unwrap();
    let title = unique("US thyroid replaced");
    let put = call(
        ALICE,
        "PUT",
        &format!("/api/v1/templates/{id}"),
        &[("Content-Type", "text/html")],
        Some(thyroid(&title).as_bytes()),
    );
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(put.json()["data"]["name"], title.as_str());
    assert_eq!(put.json()["data"]["fields"].as_array().unwrap().len(), 14);
    // JSON unless the client prefers HTML.
    for accept in [
        None,
        Some("application/json"),
        Some("application/json, text/html;q=0.5"),
        Some("text/html;q=0"),
    ] {
        let headers: Vec<(&str, &str)> = accept.iter().map(|a| ("Accept", *a)).collect();
        let got = call(
            ALICE,
            "GET",
            &format!("/api/v1/templates/{id}"),
            &headers,
            None,
        );
        assert_eq!(got.status, 200);
        assert_eq!(got.json()["data"]["id"], id, "Accept {accept:?}");
    }
    let html = call(
        ALICE,
        "GET",
        &format!("/api/v1/templates/{id}"),
        &[("Accept", "application/json;q=0.4, text/html")],
        None,
    );
    assert!(html.body.starts_with("<!DOCTYPE html>"), "{}", html.body);
}

#[test]
fn a_document_that_is_not_an_mrrt_template_is_refused_by_name_and_nothing_is_stored() {
    // Every refused document carries this title; none may be stored.
    let title = unique("refused import");
    let thyroid = thyroid(&title);
    let cases = [
        (
            format!("<p>A fragment, not a document: {title}</p>"),
            "no <html> element",
        ),
        (
            thyroid.replace("<meta charset=\"UTF-8\" />", ""),
            "<meta charset>",
        ),
        (thyroid.replace("</coded_content>", ""), "not well formed"),
        (
            thyroid.replace("<status>ACTIVE</status>", "<status>PUBLISHED</status>"),
            "status must be one of",
        ),
        (
            thyroid.replace(
                "<script type=\"text/xml\">",
                "<script type=\"text/javascript\">",
            ),
            "template_attributes; none was found",
        ),
        (
            thyroid.replace("content=\"2026-03-02\"", "content=\"2nd March\""),
            "dcterms.date",
        ),
        (thyroid.replace("value=\"RDE1040\" ", ""), "'value'"),
        (
            thyroid.replace("</body>", "</body><body></body>"),
            "one <body>",
        ),
    ];
    for (document, named) in cases {
        let reply = import(ALICE, &document);
        assert_eq!(reply.status, 400, "{named}: {}", reply.body);
        let error = &reply.json()["error"];
        assert_eq!(error["code"], "bad_request");
        assert!(
            error["message"].as_str().unwrap().contains(named),
            "{named}: {}",
            error["message"]
        );
    }
    // A coded_content entry for an id the body does not have, and a binding to an input the
    // system does not take, are the template's fields at fault (422).
    let dangling = import(
        ALICE,
        &thyroid.replace("ORIGTXT=\"findings\"", "ORIGTXT=\"no_such_element\""),
    );
    assert_eq!(
        (
            dangling.status,
            dangling.json()["error"]["details"]["field"].clone()
        ),
        (422, json!("coded_content"))
    );
    assert!(dangling.body.contains("no_such_element"));
    let unbound = import(
        ALICE,
        &thyroid.replace(
            "data-radref-input=\"shape\"",
            "data-radref-input=\"orientation\"",
        ),
    );
    assert_eq!(unbound.status, 422);
    assert!(
        unbound.body.contains("orientation") && unbound.body.contains("composition"),
        "{}",
        unbound.body
    );
    let option = import(
        ALICE,
        &thyroid.replace("<option value=\"spongiform\">", "<option value=\"sponge\">"),
    );
    assert_eq!(option.status, 422);
    assert!(option.body.contains("'sponge'"), "{}", option.body);
    let kind = import(
        ALICE,
        &thyroid
            .replace(
                "type=\"number\" id=\"n1_size\"",
                "type=\"checkbox\" id=\"n1_size\"",
            )
            .replace(
                "data-field-type=\"NUMBER\" data-field-units=\"mm\" min=\"1\"",
                "data-field-units=\"mm\" min=\"1\"",
            ),
    );
    assert_eq!(kind.status, 422);
    assert!(
        kind.body.contains("CHECKBOX") && kind.body.contains("NUMBER field"),
        "{}",
        kind.body
    );
    let not_utf8 = call(
        ALICE,
        "POST",
        "/api/v1/templates",
        &[("Content-Type", "text/html")],
        Some(&[0xff, 0xfe, 0x3c]),
    );
    assert_eq!(not_utf8.status, 400);
    let search = format!("/api/v1/templates?search={}", title.replace(' ', "%20"));
    let stored = call(ALICE, "GET", &search, &[], None).json()["meta"]["total"].clone();
    assert_eq!(stored, json!(0), "a refused import stored something");
}

#[test]
fn nothing_executable_survives_an_import() {
    let nasty = thyroid(&unique("US thyroid nasty")).replace(
        "<section id=\"impression\"",
        "<script>alert(1)</script><img src=x onerror=alert(2)><a href=\"javascript:alert(3)\">link</a><iframe src=\"https://example.org\"></iframe><svg onload=alert(4)></svg><p style=\"background:url(javascript:x)\" onclick=\"x()\">styled</p><input type=\"image\" src=\"x\" formaction=\"javascript:x\" onfocus=\"x()\" autofocus><textarea id=\"ta\"></textarea><script>alert(5)</script></textarea><section id=\"impression\"",
    );
    let reply = import(ALICE, &nasty);
    assert_eq!(reply.status, 201, "{}", reply.body);
    let t = reply.json()["data"].clone();
    let content = t["content"].as_str().unwrap().to_ascii_lowercase();
    for active in [
        "<script",
        "<img",
        "<a ",
        "<iframe",
        "<svg",
        "onerror",
        "onload",
        "onclick",
        "onfocus",
        "javascript:",
        "style=",
        "src=",
        "formaction",
        "autofocus",
    ] {
        assert!(!content.contains(active), "{active} survived: {content}");
    }
    // A script written inside a text area is its text, escaped.
    assert!(
        content.contains("<textarea id=\"ta\">&lt;/textarea&gt;")
            || content.contains("<textarea id=\"ta\"></textarea>"),
        "{content}"
    );
    let exported = export(ALICE, t["id"].as_str().unwrap())
        .body
        .to_ascii_lowercase();
    assert_eq!(
        exported.matches("<script").count(),
        1,
        "only the XML block: {exported}"
    );
}

#[test]
fn a_filled_template_is_evaluated_through_its_bound_fields() {
    let t = import(ALICE, &thyroid(&unique("US thyroid evaluate"))).json()["data"].clone();
    let path = format!("/api/v1/templates/{}/evaluate", t["id"].as_str().unwrap());
    // Values by field id; the rest from what the template holds (solid, wider-than-tall,
    // smooth, no echogenic foci).
    let reply = json_call(
        ALICE,
        "POST",
        &path,
        json!({ "values": { "n1_echogenicity": "hypoechoic", "n1_size": "17" } }),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let data = reply.json()["data"].clone();
    assert_eq!(data["values"]["n1_size"], 17.0);
    assert_eq!(data["values"]["n1_composition"], "solid");
    let evaluation = &data["evaluations"][0];
    assert_eq!(evaluation["slug"], "acr-ti-rads-2017");
    let unit = |id: &str| {
        evaluation["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(unit("tirads_level")["answer"], "TR4");
    assert_eq!(unit("tirads_level")["outcome"]["code"], "TR4");
    assert_eq!(unit("fna_followup")["answer"], "FNA");
    assert_eq!(unit("fna_followup")["rule"]["citation"], "tessler2017");

    // The filled document itself, as a reporting system holds it.
    let filled = THYROID
        .replace(
            "<option value=\"very_hypoechoic\">",
            "<option value=\"very_hypoechoic\" selected=\"selected\">",
        )
        .replace(
            "<option value=\"lobulated_or_irregular\">",
            "<option value=\"lobulated_or_irregular\" selected=\"selected\">",
        )
        .replace(
            "<option value=\"smooth\" selected=\"selected\">",
            "<option value=\"smooth\">",
        )
        .replace("id=\"n1_size\"", "id=\"n1_size\" value=\"9\"");
    let reply = call(
        ALICE,
        "POST",
        &path,
        &[("Content-Type", "text/html")],
        Some(filled.as_bytes()),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let evaluation = reply.json()["data"]["evaluations"][0].clone();
    let unit = |id: &str| {
        evaluation["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["id"] == id)
            .unwrap()
            .clone()
    };
    // solid 2 + very hypoechoic 3 + lobulated 2 = 7: TR5; 9 mm is below its follow-up size.
    assert_eq!(unit("tirads_level")["answer"], "TR5");
    assert_eq!(evaluation["inputs"]["max_diameter_mm"], 9.0);

    // With nothing filled in, what the template holds: echogenicity and size are missing.
    let empty = call(ALICE, "POST", &path, &[], None);
    assert_eq!(empty.status, 200, "{}", empty.body);
    let missing = empty.json()["data"]["evaluations"][0]["missing"].clone();
    assert!(
        missing
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "echogenicity"),
        "{missing}"
    );

    // Refusals: a field the template does not have, a value its input cannot take.
    let unknown = json_call(ALICE, "POST", &path, json!({ "values": { "n9_size": 3 } }));
    assert_eq!(
        (
            unknown.status,
            unknown.json()["error"]["details"]["field"].clone()
        ),
        (422, json!("values"))
    );
    let wrong = json_call(
        ALICE,
        "POST",
        &path,
        json!({ "values": { "n1_size": "large" } }),
    );
    assert_eq!(wrong.status, 422);
    assert!(wrong.body.contains("not a number"), "{}", wrong.body);
    let bad_value = json_call(
        ALICE,
        "POST",
        &path,
        json!({ "values": { "n1_composition": "crystalline" } }),
    );
    assert_eq!(bad_value.status, 422, "{}", bad_value.body);
    let extra = json_call(ALICE, "POST", &path, json!({ "inputs": {} }));
    assert_eq!(extra.status, 422);
    // Another user's private template is not theirs to evaluate.
    let other = json_call(BOB, "POST", &path, json!({}));
    assert_eq!(other.status, 403);
    // A template with no bound field has nothing to evaluate.
    let plain = json_call(
        ALICE,
        "POST",
        "/api/v1/templates",
        json!({ "name": unique("plain"), "content": "<p>Normal.</p>" }),
    )
    .json()["data"]["id"]
        .clone();
    let nothing = json_call(
        ALICE,
        "POST",
        &format!("/api/v1/templates/{}/evaluate", plain.as_str().unwrap()),
        json!({}),
    );
    assert_eq!(nothing.status, 422);
    assert!(nothing.body.contains("no field bound"), "{}", nothing.body);
}

#[test]
fn a_public_template_exports_for_another_user_without_the_owners_settings() {
    let t = json_call(
        ALICE,
        "POST",
        "/api/v1/templates",
        json!({
            "name": unique("public MRRT"), "content": "<p>Liver: normal.</p>", "is_public": true,
            "voice_command": unique("public mrrt voice"), "modality": "CT"
        }),
    )
    .json()["data"]
        .clone();
    let doc = export(BOB, t["id"].as_str().unwrap());
    assert_eq!(doc.status, 200);
    assert!(doc
        .body
        .contains("<meta name=\"radref.modality\" content=\"CT\"/>"));
    assert!(
        !doc.body.contains("public mrrt voice") && !doc.body.contains("tpl-alice"),
        "{}",
        doc.body
    );
    // Bob imports his own copy.
    let copy = import(BOB, &doc.body);
    assert_eq!(copy.status, 201, "{}", copy.body);
    assert_eq!(copy.json()["data"]["created_by"], "tpl-bob");
    assert_eq!(copy.json()["data"]["is_public"], false);
}
