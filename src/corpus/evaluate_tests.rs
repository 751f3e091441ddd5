//! Evaluator tests: every example of the compiled corpus, the three-valued stop, derived
//! inputs, each input error, the what-would-change note, and the build's logic checks.

use super::check::{never_reached, run_example, shadowed};
use super::compiled::{logic, Logic, SYSTEMS};
use super::evaluate::*;
use super::source::{DecisionUnit, Example};
use serde_json::{json, Value};

fn system(slug: &str) -> &'static Logic {
    let i = SYSTEMS.iter().position(|s| s.slug == slug).unwrap();
    logic(i).unwrap()
}

fn run(slug: &str, inputs: Value) -> Evaluation<'static> {
    let model = system(slug).model();
    let inputs = model.inputs_from_json(inputs.as_object().unwrap()).unwrap();
    evaluate(model, &inputs, None).unwrap()
}

fn tr4() -> Value {
    json!({"composition": "solid", "echogenicity": "hypoechoic", "shape": "wider_than_tall",
           "margin": "smooth", "echogenic_foci": ["none_or_large_comet_tail"]})
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

#[test]
fn every_example_of_every_system_gives_its_expected_answer() {
    let mut count = 0;
    for (i, s) in SYSTEMS.iter().enumerate() {
        let logic = logic(i).unwrap_or_else(|| panic!("{}: logic does not parse", s.slug));
        let model = logic.model();
        assert!(model.order().is_ok(), "{}", s.slug);
        for unit in &logic.decision_units {
            for (k, example) in unit.examples.iter().enumerate() {
                count += 1;
                if let Err(e) = run_example(model, unit, example) {
                    panic!("{} {} example {k}: {e}", s.slug, unit.id);
                }
            }
        }
    }
    assert!(count >= 49, "{count} examples");
}

#[test]
fn a_decided_unit_carries_its_score_rule_outcome_and_trace() {
    let e = run(
        "acr-ti-rads-2017",
        with(tr4(), "max_diameter_mm", json!(12)),
    );
    let level = e.unit("tirads_level").unwrap();
    assert_eq!(level.status, UnitStatus::Decided);
    assert_eq!(level.answer, Some("TR4"));
    let score = level.score.as_ref().unwrap();
    assert_eq!(score.value, Some(4.0));
    let points: Vec<(&str, f64)> = score.points.iter().map(|p| (p.input, p.points)).collect();
    assert_eq!(
        points,
        [
            ("composition", 2.0),
            ("echogenicity", 2.0),
            ("shape", 0.0),
            ("margin", 0.0),
            ("echogenic_foci", 0.0)
        ]
    );
    let rule = level.rule.as_ref().unwrap();
    assert_eq!((rule.index, rule.citation), (Some(2), "tessler2017"));
    assert!(!rule.locator.is_empty());
    let outcome = level.outcome.unwrap();
    assert_eq!(outcome.code, "TR4");
    assert_eq!(level.trace_text(), "0 false, 1 false, 2 true");
    let fna = e.unit("fna_followup").unwrap();
    assert_eq!(fna.result, Some("US follow-up at 1, 2, 3 and 5 years"));
    assert_eq!(fna.derived[0].value.as_deref(), Some("TR4"));
    assert!(!fna.derived[0].given);
    assert!(e.missing.is_empty());
}

#[test]
fn an_unknown_rule_stops_the_unit_even_when_a_later_rule_holds() {
    // Part-solid, 8 mm, solid component not given: rule 6 (solid component >= 6 mm) is
    // unknown; rule 7 (size >= 6 mm) would hold, but is never reached.
    let e = run(
        "fleischner-2017",
        json!({"nodule_type": "part_solid", "nodule_number": "single", "size_mm": 8}),
    );
    let u = e.unit("subsolid_nodules").unwrap();
    assert_eq!(u.status, UnitStatus::NeedsInputs);
    assert_eq!(u.rule.as_ref().unwrap().index, Some(6));
    assert_eq!(u.trace.last().unwrap().holds, Truth::Unknown);
    assert_eq!(u.trace.len(), 7);
    assert!(u.outcome.is_none() && u.result.is_none());
    let missing: Vec<&str> = u.missing.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(missing, ["solid_component_mm"]);
    // The definition comes with it: type, unit, range.
    let def = serde_json::to_value(u.missing[0]).unwrap();
    assert_eq!(def["type"], "number");
    assert_eq!(def["unit"], "mm");
    assert_eq!(def["min"], 0.0);
    assert!(e.missing.contains(&"solid_component_mm"));
}

#[test]
fn all_any_and_not_follow_three_valued_logic() {
    let unit: DecisionUnit = serde_json::from_value(json!({
        "id": "u", "title": "U", "inputs": ["a", "b"],
        "rules": [
            {"when": {"all": [{"var": "a", "op": "eq", "value": true}, {"var": "b", "op": "eq", "value": true}]}, "result": "both", "text": "t", "citation": "c", "locator": "l", "consensus": "consensus", "verification": "draft"},
            {"when": {"any": [{"var": "a", "op": "eq", "value": true}, {"not": {"var": "b", "op": "eq", "value": true}}]}, "result": "either", "text": "t", "citation": "c", "locator": "l", "consensus": "consensus", "verification": "draft"},
            {"when": {"always": true}, "result": "neither", "text": "t", "citation": "c", "locator": "l", "consensus": "consensus", "verification": "draft"}
        ],
        "text": "t", "citation": "c", "locator": "l", "consensus": "consensus", "verification": "draft"
    }))
    .unwrap();
    let inputs: Vec<crate::corpus::source::Input> = ["a", "b"]
        .iter()
        .map(|id| {
            serde_json::from_value(json!({"id": id, "label": id, "type": "boolean", "text": "t",
                "citation": "c", "locator": "l", "consensus": "consensus", "verification": "draft"}))
            .unwrap()
        })
        .collect();
    let units = [unit];
    let model = Model {
        inputs: &inputs,
        units: &units,
        outcomes: &[],
    };
    let eval = |v: Value| {
        let inputs = model.inputs_from_json(v.as_object().unwrap()).unwrap();
        let e = evaluate(model, &inputs, None).unwrap();
        let u = &e.units[0];
        (u.status, u.result, u.trace_text())
    };
    // all(): false as soon as one part is false, even with the other unknown.
    // any(): then true as soon as one part is true.
    assert_eq!(eval(json!({"a": false})).2, "0 false, 1 unknown");
    assert_eq!(
        eval(json!({"b": false})),
        (
            UnitStatus::Decided,
            Some("either"),
            "0 false, 1 true".into()
        )
    );
    assert_eq!(eval(json!({"a": true})).0, UnitStatus::NeedsInputs);
    assert_eq!(eval(json!({"a": false, "b": true})).1, Some("neither"));
    assert_eq!(eval(json!({})).2, "0 unknown");
}

#[test]
fn a_derived_input_reports_the_inputs_its_unit_needs() {
    let e = run("acr-ti-rads-2017", json!({"max_diameter_mm": 20}));
    let fna = e.unit("fna_followup").unwrap();
    assert_eq!(fna.status, UnitStatus::NeedsInputs);
    let missing: Vec<&str> = fna.missing.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(missing, ["composition"]);
    assert_eq!(e.missing, ["composition"]);
}

#[test]
fn a_unit_no_rule_covers_is_not_reached_with_a_reason() {
    // 1 point: the chart gives no level, so no FNA rule can hold.
    let e = run(
        "acr-ti-rads-2017",
        json!({"composition": "mixed_cystic_solid", "echogenicity": "anechoic", "shape": "wider_than_tall",
               "margin": "smooth", "echogenic_foci": [], "max_diameter_mm": 30}),
    );
    let level = e.unit("tirads_level").unwrap();
    assert_eq!(
        level.result,
        Some("No TR level assigned by the chart for a 1-point total")
    );
    let fna = e.unit("fna_followup").unwrap();
    assert_eq!(fna.status, UnitStatus::NotReached);
    assert!(fna.reason.as_deref().unwrap().contains("no rule"));
    assert!(fna.rule.is_none());
    assert_eq!(fna.trace.len(), 10);
}

#[test]
fn a_derived_input_given_directly_overrides_its_unit() {
    let e = run(
        "recist-1-1",
        json!({"target_response": "none", "non_target_response": "CR", "new_lesion": false}),
    );
    let overall = e.unit("overall_response").unwrap();
    assert_eq!(overall.answer, Some("CR"));
    assert!(overall.derived.iter().all(|d| d.given));
}

#[test]
fn units_selects_a_unit_and_what_it_depends_on() {
    let model = system("acr-ti-rads-2017").model();
    let inputs = model.inputs_from_json(tr4().as_object().unwrap()).unwrap();
    let e = evaluate(model, &inputs, Some(&["fna_followup".to_string()])).unwrap();
    let ids: Vec<&str> = e.units.iter().map(|u| u.id).collect();
    assert_eq!(ids, ["tirads_level", "fna_followup"]);
    let e = evaluate(model, &inputs, Some(&["tirads_level".to_string()])).unwrap();
    assert_eq!(e.units.len(), 1);
    let err = evaluate(model, &inputs, Some(&["fna".to_string()])).unwrap_err();
    assert_eq!(err.field(), "units");
    assert!(
        err.to_string().contains("tirads_level, fna_followup"),
        "{err}"
    );
}

#[test]
fn the_nearest_thresholds_say_what_would_change_the_answer() {
    let e = run(
        "acr-ti-rads-2017",
        with(tr4(), "max_diameter_mm", json!(12)),
    );
    let fna = e.unit("fna_followup").unwrap();
    let notes: Vec<&str> = fna.changes.iter().map(|c| c.note.as_str()).collect();
    assert_eq!(
        notes,
        [
            "Maximum nodule diameter at 15 mm or more: FNA",
            "Maximum nodule diameter below 10 mm: No FNA, no follow-up"
        ]
    );
    let up = &fna.changes[0];
    assert_eq!((up.at, up.side), (15.0, Side::AtOrAbove));
    assert_eq!(up.rule.index, Some(4));
    assert_eq!(up.rule.citation, "tessler2017");
    // On the boundary itself: exactly 15 mm is FNA, and just below it is not.
    let e = run(
        "acr-ti-rads-2017",
        with(tr4(), "max_diameter_mm", json!(15)),
    );
    let notes: Vec<&str> = e
        .unit("fna_followup")
        .unwrap()
        .changes
        .iter()
        .map(|c| c.note.as_str())
        .collect();
    assert_eq!(
        notes,
        ["Maximum nodule diameter below 15 mm: US follow-up at 1, 2, 3 and 5 years"]
    );
    // Fleischner: 7 mm low risk moves up above 8 mm and down below 6 mm.
    let e = run(
        "fleischner-2017",
        json!({"nodule_type": "solid", "nodule_number": "single", "size_mm": 7, "risk": "low", "typical_perifissural": false}),
    );
    let notes: Vec<&str> = e
        .unit("solid_nodules")
        .unwrap()
        .changes
        .iter()
        .map(|c| c.note.as_str())
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("above 8 mm"), "{notes:?}");
    assert!(notes[1].contains("below 6 mm"), "{notes:?}");
}

fn json_error(slug: &str, inputs: Value) -> InputError {
    system(slug)
        .model()
        .inputs_from_json(inputs.as_object().unwrap())
        .unwrap_err()
}

fn query_error(slug: &str, pairs: &[(&str, &str)]) -> InputError {
    system(slug)
        .model()
        .inputs_from_query(pairs.iter().copied())
        .unwrap_err()
}

#[test]
fn each_input_error_names_the_field_and_the_fix() {
    let e = json_error("acr-ti-rads-2017", json!({"colour": "red"}));
    assert_eq!(e.field(), "inputs.colour");
    assert!(e.to_string().contains("composition, echogenicity"), "{e}");
    let e = json_error("acr-ti-rads-2017", json!({"max_diameter_mm": "12"}));
    assert!(matches!(e, InputError::WrongType { .. }), "{e}");
    assert!(e.to_string().contains("must be a number"), "{e}");
    let e = json_error("acr-ti-rads-2017", json!({"composition": "solidish"}));
    assert_eq!(e.field(), "inputs.composition");
    assert!(e.to_string().contains("allowed: cystic, spongiform"), "{e}");
    let e = json_error("acr-ti-rads-2017", json!({"max_diameter_mm": -1}));
    assert!(matches!(e, InputError::OutOfRange { .. }), "{e}");
    assert!(e.to_string().contains("at least 0"), "{e}");
    let e = json_error("acr-ti-rads-2017", json!({"echogenic_foci": "punctate"}));
    assert!(matches!(e, InputError::ScalarForMulti { .. }), "{e}");
    let e = json_error(
        "acr-ti-rads-2017",
        json!({"echogenic_foci": ["punctate", "punctate"]}),
    );
    assert!(matches!(e, InputError::RepeatedValue { .. }), "{e}");
    let e = json_error("fleischner-2017", json!({"typical_perifissural": "yes"}));
    assert!(e.to_string().contains("true or false"), "{e}");
    // The query form: one value for a multi is a one-element list; types parse or are refused.
    let model = system("acr-ti-rads-2017").model();
    let ok = model
        .inputs_from_query([
            ("echogenic_foci", "punctate"),
            ("max_diameter_mm", "12.5"),
            ("shape", ""),
        ])
        .unwrap();
    assert_eq!(
        ok["echogenic_foci"],
        Given::Choices(vec!["punctate".into()])
    );
    assert_eq!(ok["max_diameter_mm"], Given::Number(12.5));
    assert!(!ok.contains_key("shape"));
    let both = model
        .inputs_from_query([("echogenic_foci", "punctate,peripheral_rim")])
        .unwrap();
    assert_eq!(
        both["echogenic_foci"],
        Given::Choices(vec!["punctate".into(), "peripheral_rim".into()])
    );
    let e = query_error("acr-ti-rads-2017", &[("max_diameter_mm", "big")]);
    assert!(matches!(e, InputError::WrongType { .. }), "{e}");
    let e = query_error(
        "acr-ti-rads-2017",
        &[("echogenic_foci", "punctate,sparkly")],
    );
    assert!(matches!(e, InputError::UndeclaredValue { .. }), "{e}");
    let e = query_error("fleischner-2017", &[("typical_perifissural", "maybe")]);
    assert!(matches!(e, InputError::WrongType { .. }), "{e}");
}

#[test]
fn a_failed_example_names_the_unit_what_was_expected_and_the_trace() {
    let logic = system("acr-ti-rads-2017");
    let unit = &logic.decision_units[1];
    let example: Example = serde_json::from_value(json!({
        "inputs": with(tr4(), "max_diameter_mm", json!(12)),
        "expect": {"result": "FNA"}
    }))
    .unwrap();
    let err = run_example(logic.model(), unit, &example).unwrap_err();
    assert!(err.contains("expected result 'FNA'"), "{err}");
    assert!(
        err.contains("got decided result 'US follow-up at 1, 2, 3 and 5 years' at rule 5"),
        "{err}"
    );
    assert!(
        err.contains("trace: 0 false, 1 false, 2 false, 3 false, 4 false, 5 true"),
        "{err}"
    );
}

#[test]
fn rules_no_input_can_reach_are_found() {
    let logic = system("acr-ti-rads-2017");
    let mut unit = logic.decision_units[1].clone();
    assert!(shadowed(&unit).is_empty());
    assert_eq!(never_reached(logic.model(), &unit), Some(vec![]));
    // A copy of rule 4 after itself, and an `always` before the last rule.
    unit.rules.insert(5, unit.rules[4].clone());
    let mut always = unit.rules[0].clone();
    always.when = serde_json::from_value(json!({"always": true})).unwrap();
    unit.rules.insert(10, always);
    let found = shadowed(&unit);
    assert_eq!(found[0].0, 5);
    assert!(found[0].1.contains("same condition"));
    assert_eq!(found[1].0, 11);
    assert!(found[1].1.contains("always holds"));
    // Exhaustive search: "TR4 and >= 10 mm" placed before "TR4 and >= 15 mm" hides the latter.
    let mut unit = logic.decision_units[1].clone();
    unit.rules.swap(4, 5);
    let never = never_reached(logic.model(), &unit).unwrap();
    assert_eq!(never.iter().map(|(r, _)| *r).collect::<Vec<_>>(), [5]);
    assert!(
        never[0].1.contains("earlier rule 4 decides first"),
        "{}",
        never[0].1
    );
}
