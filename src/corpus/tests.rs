//! Validator tests: a valid fixture passes, and each deliberately broken copy fails with a
//! message naming the file, the JSON path and the reason.

use super::load::load;
use super::problem::Problem;
use super::validate::validate;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const FIXTURE: &str = include_str!("../../tests/fixtures/minimal-system.json");

/// Writes a corpus directory with one system (and an optional extra file) and returns the
/// problems validation reports.
fn problems_for(system: &Value, registry: &str, extra: Option<(&str, &Value)>) -> Vec<Problem> {
    corpus_problems(system, registry, extra, false)
}

/// The problems the build reports for a corpus of this one system: validation, then (when it
/// passes) the logic checks, examples and unreachable rules, exactly as `build.rs` runs them.
fn build_problems_for(system: &Value) -> Vec<Problem> {
    corpus_problems(system, "test-rads-2020\n", None, true)
}

fn corpus_problems(
    system: &Value,
    registry: &str,
    extra: Option<(&str, &Value)>,
    logic: bool,
) -> Vec<Problem> {
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
    if logic && problems.is_empty() {
        problems.extend(super::check::check(&sources).problems);
    }
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
fn a_rule_defers_only_to_other_units_and_with_a_result() {
    assert_fails(
        |s| s["decision_units"][0]["rules"][2]["defers_to"] = json!(["staging"]),
        "$.decision_units[0].rules[2].defers_to[0]",
        "no decision unit 'staging' in this system",
    );
    assert_fails(
        |s| s["decision_units"][0]["rules"][2]["defers_to"] = json!(["category"]),
        "$.decision_units[0].rules[2].defers_to[0]",
        "a unit does not defer to itself",
    );
    // A second unit to defer to: with a result the rule is valid, with an outcome it is not.
    let with_second = |s: &mut Value| {
        let mut second = s["decision_units"][0].clone();
        second["id"] = json!("second");
        s["decision_units"].as_array_mut().unwrap().push(second);
        s["decision_units"][0]["rules"][2]["defers_to"] = json!(["second"]);
    };
    let mut system = fixture();
    with_second(&mut system);
    assert_eq!(problems_for(&system, "test-rads-2020\n", None), vec![]);
    assert_fails(
        |s| {
            with_second(s);
            s["decision_units"][0]["rules"][0]["defers_to"] = json!(["second"]);
        },
        "$.decision_units[0].rules[0].defers_to",
        "a rule that defers has a result, not an outcome",
    );
}

#[test]
fn only_a_multi_input_is_listed() {
    assert_fails(
        |s| s["inputs"][0]["listed"] = json!(true),
        "$.inputs[0].listed",
        "only a multi input is listed",
    );
}

#[test]
fn only_a_percentage_input_is_named_by_report_phrases() {
    // size_mm is a number in mm: its sizes are read by their own rules.
    assert_fails(
        |s| s["inputs"][0]["named_by"] = json!(["size"]),
        "$.inputs[0].named_by",
        "only a number input in % or a boolean input about a finding is named by report phrases",
    );
    let percent = |s: &mut Value| s["inputs"][0]["unit"] = json!("%");
    assert_fails(
        |s| {
            percent(s);
            s["inputs"][0]["named_by"] = json!(["Slip"]);
        },
        "$.inputs[0].named_by[0]",
        "must be folded words",
    );
    assert_fails(
        |s| {
            percent(s);
            s["inputs"][0]["named_by"] = json!(["slip", "slip"]);
        },
        "$.inputs[0].named_by[1]",
        "duplicate phrase",
    );
    let mut system = fixture();
    percent(&mut system);
    system["inputs"][0]["named_by"] = json!(["slip", "anterolisthesis"]);
    assert_eq!(problems_for(&system, "test-rads-2020\n", None), vec![]);
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
fn impossible_calendar_date() {
    assert_fails(
        |s| s["currency"]["effective"] = json!("2017-02-29"),
        "$.currency.effective",
        "not an ISO 8601 date",
    );
}

#[test]
fn dates_follow_the_calendar() {
    use crate::corpus::syntax::is_date;
    for ok in [
        "2024",
        "2024-02",
        "2024-02-29",
        "2000-02-29",
        "2023-02-28",
        "2023-12-31",
        "2023-04-30",
        "1600-02-29",
    ] {
        assert!(is_date(ok), "{ok}");
    }
    for bad in [
        "2023-02-29",
        "1900-02-29",
        "2100-02-29",
        "2020-02-30",
        "2023-04-31",
        "2023-06-31",
        "2023-09-31",
        "2023-11-31",
        "2023-01-32",
        "2023-01-00",
        "2023-00",
        "2023-13",
        "23",
        "2023-1-01",
        "2023-01-1",
        "+023-01-01",
        "2023-01-01-01",
        "",
        "２０２３",
    ] {
        assert!(!is_date(bad), "{bad}");
    }
}

#[test]
fn the_real_corpus_is_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let (sources, mut problems) = load(&root);
    problems.extend(validate(&sources));
    assert_eq!(problems, vec![]);
    // Its examples give their answers, and every rule can decide for some inputs.
    assert_eq!(super::check::check(&sources).problems, vec![]);
    assert!(sources.systems.len() >= 12);
}

/// corpus/README.md lists every published system, in registry order, and says truly which
/// have decision units.
#[test]
fn the_corpus_readme_lists_every_published_system() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let (sources, _) = load(&root);
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let listed: Vec<(String, String)> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            Some((
                cells.first()?.trim_end_matches('`').to_string(),
                cells.get(4)?.to_string(),
            ))
        })
        .collect();
    let slugs: Vec<&String> = listed.iter().map(|(s, _)| s).collect();
    let published: Vec<&String> = sources.registry.iter().collect();
    assert_eq!(
        slugs, published,
        "corpus/README.md's table follows slugs.txt"
    );
    for (slug, evaluable) in &listed {
        let (_, system) = sources
            .systems
            .iter()
            .find(|(_, s)| &s.slug == slug)
            .unwrap();
        let has_units = if system.decision_units.is_empty() {
            "no"
        } else {
            "yes"
        };
        assert_eq!(evaluable, has_units, "{slug}");
    }
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

/// A rule of the fixture's unit, citing and locating like the others.
fn rule(when: Value, result: &str) -> Value {
    json!({"when": when, "result": result, "text": format!("{result}."), "citation": "ref2020",
           "locator": "Table 2", "consensus": "consensus", "verification": "draft"})
}

/// The unreachable rules the build reports for the fixture with these rules.
fn unreachable_with(rules: Value) -> Vec<Problem> {
    let mut system = fixture();
    system["decision_units"][0]["rules"] = rules;
    build_problems_for(&system)
}

#[test]
fn the_fixture_passes_the_logic_checks() {
    assert_eq!(build_problems_for(&fixture()), vec![]);
}

#[test]
fn a_rule_no_input_can_reach_refuses_the_build() {
    let fixture = fixture();
    let rules = fixture["decision_units"][0]["rules"].as_array().unwrap();
    let tall_and_large = rules[0]["when"].clone();
    let path = |r: usize| format!("$.decision_units[0].rules[{r}]");

    // A rule after `always`.
    let mut after_always = rules.clone();
    after_always.push(rule(
        json!({"var": "size_mm", "op": "lt", "value": 5}),
        "small",
    ));
    let found = unreachable_with(json!(after_always));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].file, "systems/test-rads-2020.json");
    assert_eq!(found[0].path, path(3));
    assert!(found[0]
        .reason
        .contains("rule 3 is never reached: rule 2 always holds"));
    let shown = found[0].to_string();
    assert!(
        shown.starts_with("corpus/systems/test-rads-2020.json at $.decision_units[0].rules[3]: unit 'category' rule 3"),
        "{shown}"
    );

    // A rule with the same condition as an earlier one.
    let mut repeated = rules.clone();
    repeated.insert(1, rule(tall_and_large.clone(), "repeated"));
    let found = unreachable_with(json!(repeated));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, path(1));
    assert!(
        found[0].reason.contains("rule 0 has the same condition"),
        "{}",
        found[0].reason
    );

    // An equivalent condition written differently (its parts swapped): the exhaustive search.
    let swapped = json!({"all": [tall_and_large["all"][1], tall_and_large["all"][0]]});
    let mut equivalent = rules.clone();
    equivalent.insert(1, rule(swapped, "equivalent"));
    let found = unreachable_with(json!(equivalent));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, path(1));
    assert!(
        found[0]
            .reason
            .contains("wherever its condition holds, earlier rule 0 decides first"),
        "{}",
        found[0].reason
    );

    // A fallback for an input that is not given ("size not measured"): the unit stops and asks
    // for the size instead, so the rule never decides.
    let mut fallback = rules[..2].to_vec();
    fallback.push(rule(
        json!({"var": "size_mm", "op": "lt", "value": 10}),
        "small",
    ));
    fallback.push(rule(
        json!({"var": "shape", "op": "eq", "value": "tall"}),
        "size not measured",
    ));
    let found = unreachable_with(json!(fallback));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, path(3));
    assert!(
        found[0].reason.contains("earlier rules 0, 2 decide first"),
        "{}",
        found[0].reason
    );
    assert!(
        found[0].reason.contains("input of its own"),
        "{}",
        found[0].reason
    );

    // A condition that holds for no input values.
    let mut contradiction = rules.clone();
    contradiction.insert(
        1,
        rule(
            json!({"all": [{"var": "size_mm", "op": "lt", "value": 5},
                           {"var": "size_mm", "op": "gte", "value": 10}]}),
            "never",
        ),
    );
    let found = unreachable_with(json!(contradiction));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, path(1));
    assert!(
        found[0].reason.contains("holds for no combination"),
        "{}",
        found[0].reason
    );

    // All of them at once: each is reported, in rule order.
    let mut all = rules.clone();
    all.insert(1, rule(tall_and_large, "repeated"));
    all.push(rule(
        json!({"var": "size_mm", "op": "lt", "value": 5}),
        "small",
    ));
    let found = unreachable_with(json!(all));
    let paths: Vec<&str> = found.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, [path(1), path(4)]);
}

/// A confirmed code, as the corpus writes one.
fn snomed(code: &str) -> Value {
    json!({"scheme": "SNOMED CT", "code": code, "display": "Mammography assessment (Category 0)",
           "source": "https://dicom.nema.org/medical/dicom/current/output/chtml/part16/sect_CID_6027.html"})
}

#[test]
fn codes_are_checked_by_their_scheme_and_must_say_where_they_were_confirmed() {
    // A valid code anywhere it may be carried passes.
    let mut ok = fixture();
    ok["codes"] = json!([snomed("397138000")]);
    ok["outcomes"][0]["codes"] = json!([{"scheme": "RadLex", "code": "RID50296", "display": "x",
        "source": "owner/repo:path/file.fsh@9f098270ff7180e43a8df1a2eef0130b72231d5b"}]);
    assert_eq!(problems_for(&ok, "test-rads-2020\n", None), vec![]);
    // A SNOMED CT identifier whose Verhoeff check digit fails (one digit off) is refused.
    assert_fails(
        |s| s["codes"] = json!([snomed("397138001")]),
        "$.codes[0]",
        "Verhoeff",
    );
    assert_fails(
        |s| s["outcomes"][0]["codes"] = json!([{"scheme": "RadElement", "code": "RDES12.3", "display": "x", "source": "https://radelement.org/"}]),
        "$.outcomes[0].codes[0]",
        "not a well-formed RadElement code",
    );
    assert_fails(
        |s| s["inputs"][0]["codes"] = json!([{"scheme": "LOINC", "code": "36625", "display": "x", "source": "https://loinc.org/"}]),
        "$.inputs[0].codes[0]",
        "not a well-formed LOINC code",
    );
    // Where it was confirmed: an address, or a repository file at a commit.
    assert_fails(
        |s| s["codes"] = json!([{"scheme": "RadElement", "code": "RDES245", "display": "BI-RADS", "source": "the RadElement site"}]),
        "$.codes[0]",
        "where it was confirmed",
    );
}
