//! Validator tests: a valid fixture passes, and each deliberately broken copy fails with a
//! message naming the file, the JSON path and the reason.

use super::load::load;
use super::validate::{validate, Problem};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const FIXTURE: &str = include_str!("../../tests/fixtures/minimal-system.json");

/// Writes a corpus directory with one system (and an optional extra file) and returns the
/// problems the build would report.
fn problems_for(system: &Value, registry: &str, extra: Option<(&str, &Value)>) -> Vec<Problem> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "radref-corpus-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("systems")).unwrap();
    let slug = system["slug"].as_str().unwrap_or("broken");
    write(&dir.join(format!("systems/{slug}.json")), system);
    if let Some((name, value)) = extra {
        write(&dir.join(name), value);
    }
    std::fs::write(dir.join("slugs.txt"), registry).unwrap();
    write(
        &dir.join("coverage.json"),
        &json!({"not_covered": [{"name": "Planned", "planned_slug": "planned-rads-2021", "reason": "not yet authored"}]}),
    );
    let (sources, mut problems) = load(&dir);
    problems.extend(validate(&sources));
    let _ = std::fs::remove_dir_all(&dir);
    problems
}

fn write(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

fn fixture() -> Value {
    serde_json::from_str(FIXTURE).unwrap()
}

/// Applies `mutate` to the fixture and asserts one problem with this path and reason text.
fn assert_fails(mutate: impl FnOnce(&mut Value), path: &str, reason: &str) {
    let mut system = fixture();
    mutate(&mut system);
    let problems = problems_for(&system, "test-rads-2020\n", None);
    assert!(
        problems
            .iter()
            .any(|p| p.path == path && p.reason.contains(reason)),
        "expected a problem at {path} containing {reason:?}; got {problems:#?}"
    );
    let shown = problems
        .iter()
        .find(|p| p.path == path)
        .unwrap()
        .to_string();
    assert!(shown.starts_with("corpus/systems/"), "{shown}");
}

#[test]
fn the_fixture_is_valid() {
    assert_eq!(problems_for(&fixture(), "test-rads-2020\n", None), vec![]);
}

#[test]
fn uncited_line() {
    assert_fails(
        |s| s["scope"][0]["citation"] = json!(""),
        "$.scope[0].citation",
        "uncited",
    );
}

#[test]
fn missing_citation_field_is_a_parse_error_with_path() {
    assert_fails(
        |s| {
            s["outcomes"][1]["management"][0]
                .as_object_mut()
                .unwrap()
                .remove("citation");
        },
        "$.outcomes[1].management[0]",
        "missing field `citation`",
    );
}

#[test]
fn unlocated_line() {
    assert_fails(
        |s| s["outcomes"][0]["definition"]["locator"] = json!("  "),
        "$.outcomes[0].definition.locator",
        "unlocated",
    );
}

#[test]
fn unknown_reference_id() {
    assert_fails(
        |s| s["decision_units"][0]["rules"][1]["citation"] = json!("nobody2020"),
        "$.decision_units[0].rules[1].citation",
        "'nobody2020' is not a reference id",
    );
}

#[test]
fn verified_without_reviewer() {
    assert_fails(
        |s| s["inputs"][0]["verification"] = json!("verified"),
        "$.inputs[0].verification",
        "requires reviewer and reviewed_on",
    );
}

#[test]
fn verified_with_reviewer_and_date_passes() {
    let mut s = fixture();
    s["inputs"][0]["verification"] = json!("verified");
    s["inputs"][0]["reviewer"] = json!("Dr A Reviewer");
    s["inputs"][0]["reviewed_on"] = json!("2026-11-01");
    assert_eq!(problems_for(&s, "test-rads-2020\n", None), vec![]);
}

#[test]
fn malformed_doi() {
    for doi in [
        "doi:10.1000/x",
        "10.10/x",
        "10.1000/",
        "10.1000/a b",
        "https://doi.org/10.1000/x",
    ] {
        assert_fails(
            |s| s["references"]["ref2020"]["doi"] = json!(doi),
            "$.references.ref2020.doi",
            "malformed DOI",
        );
    }
}

#[test]
fn duplicate_slug() {
    let mut other = fixture();
    other["slug"] = json!("test-rads-2020");
    let problems = problems_for(
        &fixture(),
        "test-rads-2020\n",
        Some(("systems/test-rads-2020-copy.json", &other)),
    );
    assert!(
        problems
            .iter()
            .any(|p| p.reason.contains("duplicate slug 'test-rads-2020'")),
        "{problems:#?}"
    );
}

#[test]
fn bad_slug_pattern() {
    let mut s = fixture();
    s["slug"] = json!("Test_RADS");
    let problems = problems_for(&s, "Test_RADS\n", None);
    assert!(
        problems
            .iter()
            .any(|p| p.path == "$.slug" && p.reason.contains("must match ^[a-z0-9-]+$")),
        "{problems:#?}"
    );
}

#[test]
fn published_slug_without_file() {
    let problems = problems_for(&fixture(), "test-rads-2020\nretired-rads-2010\n", None);
    assert!(
        problems
            .iter()
            .any(|p| p.file == "slugs.txt" && p.reason.contains("'retired-rads-2010' has no file")),
        "{problems:#?}"
    );
}

#[test]
fn unpublished_file() {
    let problems = problems_for(&fixture(), "", None);
    assert!(
        problems
            .iter()
            .any(|p| p.reason.contains("is not in slugs.txt")),
        "{problems:#?}"
    );
}

#[test]
fn crossref_to_unknown_slug() {
    assert_fails(
        |s| s["crossrefs"][0]["slug"] = json!("no-such-rads-1999"),
        "$.crossrefs[0].slug",
        "unknown slug 'no-such-rads-1999'",
    );
}

#[test]
fn rule_outcome_not_defined() {
    assert_fails(
        |s| s["decision_units"][0]["rules"][0]["outcome"] = json!("TR-9"),
        "$.decision_units[0].rules[0].outcome",
        "outcome 'TR-9' is not defined",
    );
}

#[test]
fn enum_value_outside_schema() {
    assert_fails(
        |s| s["family"] = json!("guideline"),
        "$.family",
        "unknown variant",
    );
    assert_fails(
        |s| s["scope"][0]["consensus"] = json!("strong"),
        "$.scope[0].consensus",
        "unknown variant",
    );
    assert_fails(
        |s| s["modalities"] = json!(["Ultrasound"]),
        "$.modalities[0]",
        "unknown modality 'Ultrasound'",
    );
}

#[test]
fn unknown_field_is_refused() {
    assert_fails(
        |s| s["outcomes"][0]["risk_percent"] = json!(3),
        "$.outcomes[0].risk_percent",
        "unknown field `risk_percent`",
    );
}

#[test]
fn condition_on_undeclared_enum_value() {
    assert_fails(
        |s| {
            s["decision_units"][0]["rules"][1]["when"] =
                json!({"var": "shape", "op": "eq", "value": "oval"})
        },
        "$.decision_units[0].rules[1].when",
        "value \"oval\" is not declared by input 'shape'",
    );
}

#[test]
fn condition_on_unknown_input() {
    assert_fails(
        |s| {
            s["decision_units"][0]["rules"][1]["when"] =
                json!({"var": "margin", "op": "eq", "value": "smooth"})
        },
        "$.decision_units[0].rules[1].when.var",
        "'margin' is neither an input nor the score",
    );
}

#[test]
fn malformed_date() {
    assert_fails(
        |s| s["currency"]["effective"] = json!("May 2017"),
        "$.currency.effective",
        "not an ISO 8601 date",
    );
}

#[test]
fn the_real_corpus_is_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let (sources, mut problems) = load(&root);
    problems.extend(validate(&sources));
    assert_eq!(problems, vec![]);
    // Its examples give their answers, and no rule is shadowed.
    assert_eq!(super::check::check(&sources).problems, vec![]);
    assert!(sources.systems.len() >= 12);
}

#[test]
fn example_inputs_are_checked_by_type_and_value() {
    let example = |inputs: Value, expect: Value| json!([{ "inputs": inputs, "expect": expect }]);
    assert_fails(
        |s| {
            s["decision_units"][0]["examples"] =
                example(json!({"shape": "square"}), json!({"outcome": "TR-1"}))
        },
        "$.decision_units[0].examples[0].inputs.shape",
        "allowed: round, tall",
    );
    assert_fails(
        |s| {
            s["decision_units"][0]["examples"] =
                example(json!({"size_mm": "9"}), json!({"outcome": "TR-1"}))
        },
        "$.decision_units[0].examples[0].inputs.size_mm",
        "must be a number",
    );
    assert_fails(
        |s| {
            s["decision_units"][0]["examples"] =
                example(json!({"colour": "red"}), json!({"outcome": "TR-1"}))
        },
        "$.decision_units[0].examples[0].inputs.colour",
        "size_mm, shape",
    );
}

#[test]
fn an_example_expects_an_answer_or_needs_alone() {
    assert_fails(
        |s| s["decision_units"][0]["examples"] = json!([{ "inputs": {}, "expect": {} }]),
        "$.decision_units[0].examples[0].expect",
        "outcome and/or a result",
    );
    assert_fails(
        |s| {
            s["decision_units"][0]["examples"] =
                json!([{ "inputs": {}, "expect": {"outcome": "TR-1", "needs": ["shape"]} }])
        },
        "$.decision_units[0].examples[0].expect",
        "needs stands alone",
    );
    assert_fails(
        |s| {
            s["decision_units"][0]["examples"] =
                json!([{ "inputs": {}, "expect": {"outcome": "TR-9"} }])
        },
        "$.decision_units[0].examples[0].expect.outcome",
        "not defined",
    );
    assert_fails(
        |s| {
            s["decision_units"][0]["examples"] =
                json!([{ "inputs": {}, "expect": {"needs": ["colour"]} }])
        },
        "$.decision_units[0].examples[0].expect.needs[0]",
        "no input 'colour'",
    );
}

#[test]
fn reserved_input_ids_and_cycles_are_refused() {
    assert_fails(
        |s| s["inputs"][1]["id"] = json!("format"),
        "$.inputs[1].id",
        "reserved",
    );
    assert_fails(
        |s| {
            s["inputs"][1]["derived_from"] = json!("category");
        },
        "$.decision_units",
        "cycle",
    );
}
