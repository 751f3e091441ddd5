//! Grounding knowledge tests: the real files validate, and each deliberately broken copy fails
//! with a problem naming the file, the entry's JSON path and the reason.

use super::grounding::{self, Grounding};
use super::load::load;
use super::load::Sources;
use super::problem::Problem;
use super::validate::validate;
use serde_json::{json, Value};
use std::path::Path;

fn real() -> Sources {
    let (sources, problems) = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    assert_eq!(problems, vec![]);
    sources
}

fn file(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The problems of the real knowledge with one file changed by `mutate`.
fn problems_with(name: &str, mutate: impl FnOnce(&mut Value)) -> Vec<Problem> {
    let sources = real();
    let mut value = file(name);
    mutate(&mut value);
    let g = sources.grounding.clone().unwrap();
    let grounding = Grounding {
        lexicon: if name == grounding::LEXICON_FILE {
            serde_json::from_value(value.clone()).unwrap()
        } else {
            g.lexicon
        },
        cues: if name == grounding::CUES_FILE {
            serde_json::from_value(value.clone()).unwrap()
        } else {
            g.cues
        },
        ranking: if name == grounding::RANKING_FILE {
            serde_json::from_value(value.clone()).unwrap()
        } else {
            g.ranking
        },
        assertions: if name == grounding::ASSERTIONS_FILE {
            serde_json::from_value(value).unwrap()
        } else {
            g.assertions
        },
    };
    grounding::validate(&grounding, &sources.systems)
}

/// Asserts a problem in `name` at `path` whose reason contains `reason`, shown as
/// `corpus/<file> at <path>: <reason>`.
fn assert_fails(name: &str, mutate: impl FnOnce(&mut Value), path: &str, reason: &str) {
    let problems = problems_with(name, mutate);
    let found = problems
        .iter()
        .find(|p| p.file == name && p.path == path && p.reason.contains(reason));
    let Some(found) = found else {
        panic!("expected {name} at {path}: {reason:?}; got {problems:#?}");
    };
    assert!(found
        .to_string()
        .starts_with(&format!("corpus/{name} at {path}: ")));
}

fn cue_index(cues: &Value, name: &str) -> usize {
    cues["cues"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["name"] == name)
        .unwrap()
}

#[test]
fn the_real_knowledge_is_valid_and_loaded() {
    let sources = real();
    let g = sources.grounding.as_ref().expect("corpus/grounding/ loads");
    assert_eq!(grounding::validate(g, &sources.systems), vec![]);
    assert_eq!(validate(&sources), vec![]);
}

#[test]
fn an_unknown_slug_or_lineage_is_refused() {
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][0]["effects"][0]["lineage"] = json!("lung-rads-v9"),
        "$.cues[0].effects[0]",
        "unknown lineage 'lung-rads-v9'",
    );
    assert_fails(
        grounding::CUES_FILE,
        |c| {
            let e = c["cues"][0]["effects"][0].as_object_mut().unwrap();
            e.remove("lineage");
            e.insert("system".into(), json!("fleischner-2005"));
        },
        "$.cues[0].effects[0]",
        "unknown system 'fleischner-2005'",
    );
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][0]["effects"][0]["family"] = json!("incidental"),
        "$.cues[0].effects[0]",
        "exactly one target",
    );
}

#[test]
fn unknown_organs_and_modalities_are_refused() {
    assert_fails(
        grounding::LEXICON_FILE,
        |l| l["organs"][0]["organ"] = json!("elbow"),
        "$.organs[0].organ",
        "unknown organ 'elbow'",
    );
    assert_fails(
        grounding::LEXICON_FILE,
        |l| l["modalities"][0]["modality"] = json!("SPECT"),
        "$.modalities[0].modality",
        "unknown modality 'SPECT'",
    );
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][2]["organ"] = json!("lungs"),
        "$.cues[2].organ",
        "unknown organ 'lungs'",
    );
}

#[test]
fn a_phrase_claimed_by_two_organs_is_refused() {
    // The thyroid entry has one phrase; a second, already the lung's, is refused.
    assert_fails(
        grounding::LEXICON_FILE,
        |l| {
            let thyroid = l["organs"][1]["phrases"].as_array_mut().unwrap();
            thyroid.push(json!("pulmonary"));
        },
        "$.organs[1].phrases[1]",
        "'pulmonary' is claimed by two organs, 'lung' and 'thyroid'",
    );
}

#[test]
fn another_site_must_be_no_systems_organ_and_claim_no_organs_phrase() {
    // A site a system is about belongs among the organs, where its systems are weighed up.
    assert_fails(
        grounding::LEXICON_FILE,
        |l| l["other_sites"][0]["organ"] = json!("liver"),
        "$.other_sites[0].organ",
        "'liver' is an organ a system names: its words belong in organs",
    );
    // A site's phrase may not also be an organ's.
    assert_fails(
        grounding::LEXICON_FILE,
        |l| {
            let site = l["other_sites"][0]["phrases"].as_array_mut().unwrap();
            site.push(json!("pulmonary"));
        },
        "$.other_sites[0].phrases[11]",
        "'pulmonary' is claimed by two organs, 'lung' and 'paranasal sinuses'",
    );
}

#[test]
fn an_organ_part_names_an_organ_of_the_lexicon_with_another_organs_words() {
    assert_fails(
        grounding::LEXICON_FILE,
        |l| l["organ_parts"][0]["organ"] = json!("spleen hilum"),
        "$.organ_parts[0].organ",
        "'spleen hilum' is not an organ of the lexicon",
    );
    assert_fails(
        grounding::LEXICON_FILE,
        |l| l["part_reach"] = json!(0),
        "$.part_reach",
        "must be at least 1 when organ_parts is given",
    );
    // A word no other organ claims needs no exception.
    assert_fails(
        grounding::LEXICON_FILE,
        |l| {
            let parts = l["organ_parts"][0]["phrases"].as_array_mut().unwrap();
            parts.push(json!("uncinate process"));
        },
        "$.organ_parts[0].phrases[2]",
        "'uncinate process' is no other organ's phrase: it needs no exception",
    );
}

#[test]
fn a_structure_noun_must_be_a_measured_noun_and_no_lesion() {
    assert_fails(
        grounding::LEXICON_FILE,
        |l| {
            l["structure_nouns"]
                .as_array_mut()
                .unwrap()
                .push(json!("vessel"))
        },
        "$.structure_nouns[6]",
        "'vessel' is not a measured noun",
    );
    // A lesion is a finding whether measured or not: it cannot be anatomy too.
    assert_fails(
        grounding::LEXICON_FILE,
        |l| {
            l["structure_nouns"]
                .as_array_mut()
                .unwrap()
                .push(json!("cyst"))
        },
        "$.structure_nouns[6]",
        "'cyst' is a lesion noun: a lesion is a finding whether measured or not",
    );
}

#[test]
fn factors_must_be_above_zero() {
    for bad in [0.0, -2.0] {
        assert_fails(
            grounding::CUES_FILE,
            |c| c["cues"][0]["effects"][1]["factor"] = json!(bad),
            "$.cues[0].effects[1].factor",
            "must be above 0",
        );
    }
    assert_fails(
        grounding::RANKING_FILE,
        |r| r["organ_factor"]["value"] = json!(0.0),
        "$.organ_factor.value",
        "must be above 0",
    );
}

#[test]
fn a_cue_for_a_retired_system_without_a_current_successor_is_refused() {
    // ACR's 2013 adnexal paper is retired and no version of it is in the corpus.
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][0]["effects"][0]["lineage"] = json!("acr-if-adnexal-2013"),
        "$.cues[0].effects[0]",
        "'acr-if-adnexal-2013' is retired and no version of its lineage is current",
    );
}

#[test]
fn a_clinical_cue_needs_a_cited_basis() {
    let cues = file(grounding::CUES_FILE);
    let screening = cue_index(&cues, "screening");
    let path = format!("$.cues[{screening}].effects[1]");
    assert_fails(
        grounding::CUES_FILE,
        |c| {
            c["cues"][screening]["effects"][1]
                .as_object_mut()
                .unwrap()
                .remove("basis");
        },
        &path,
        "needs a basis",
    );
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][screening]["effects"][1]["basis"]["line"] = json!("scope[99]"),
        &format!("{path}.basis.line"),
        "'scope[99]' is not a cited line of fleischner-2017",
    );
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][screening]["effects"][1]["policy"] = json!("because"),
        &path,
        "not both",
    );
}

#[test]
fn phrases_must_be_written_folded_and_reviews_complete() {
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][0]["phrases"][0] = json!("Low-dose"),
        "$.cues[0].phrases[0]",
        "write 'low dose'",
    );
    assert_fails(
        grounding::CUES_FILE,
        |c| c["cues"][0]["verification"] = json!("verified"),
        "$.cues[0]",
        "'verified' requires reviewer and reviewed_on",
    );
    assert_fails(
        grounding::LEXICON_FILE,
        |l| l["negations"][0] = json!("no evidence"),
        "$.negations[0]",
        "single word",
    );
}

#[test]
fn a_lineage_effect_reaches_every_version() {
    // BI-RADS v2025 (draft) supersedes the 2013 edition (retired): a cue on the lineage
    // reaches both, and a version added later with `supersedes` would join them.
    let sources = real();
    let mut g = sources.grounding.clone().unwrap();
    g.cues.cues[0].effects[0].lineage = Some("acr-bi-rads-v2025".into());
    assert_eq!(grounding::validate(&g, &sources.systems), vec![]);
    let code = grounding::emit(&g, &sources.systems);
    let index = |slug: &str| {
        sources
            .systems
            .iter()
            .position(|(_, s)| s.slug == slug)
            .unwrap()
    };
    let both = format!(
        "systems: &[{}, {}]",
        index("acr-bi-rads-2013"),
        index("acr-bi-rads-v2025")
    );
    assert!(code.contains(&both), "{both} not in the emitted cue");
}

#[test]
fn assertion_triggers_are_checked() {
    assert_fails(
        grounding::ASSERTIONS_FILE,
        |a| a["triggers"][0]["phrase"] = json!("No"),
        "$.triggers[0].phrase",
        "write 'no'",
    );
    assert_fails(
        grounding::ASSERTIONS_FILE,
        |a| a["triggers"][1]["phrase"] = json!("no"),
        "$.triggers[1].phrase",
        "is also trigger 0",
    );
    assert_fails(
        grounding::ASSERTIONS_FILE,
        |a| a["pseudo_triggers"][0] = json!("gram stain"),
        "$.pseudo_triggers[0]",
        "holds no trigger",
    );
    assert_fails(
        grounding::ASSERTIONS_FILE,
        |a| a["max_scope"] = json!(0),
        "$.max_scope",
        "at least one word",
    );
}

#[test]
fn coverage_lists_what_no_cue_reaches() {
    let sources = real();
    let c = grounding::coverage(sources.grounding.as_ref().unwrap(), &sources.systems);
    assert!(c.cues >= 35);
    assert!(c.without_cue.contains(&"acr-if-pituitary-2018".to_string()));
    assert!(!c.without_cue.contains(&"fleischner-2017".to_string()));
    // The pituitary paper is reached only by the cue on the incidental family.
    assert!(c.family_only.contains(&"acr-if-pituitary-2018".to_string()));
}

/// An input read from a report setting (`setting`) names a setting of the lexicon and is a
/// boolean about the patient; the build refuses anything else, naming the system's file.
#[test]
fn an_input_read_from_a_setting_names_one_and_is_a_boolean_about_the_patient() {
    let sources = real();
    let g = sources.grounding.as_ref().unwrap();
    let with = |mutate: &dyn Fn(&mut super::source::Input)| -> (String, Vec<Problem>) {
        let mut systems = sources.systems.clone();
        let (file, system) = systems
            .iter_mut()
            .find(|(_, s)| s.slug == "acr-if-adrenal-2017")
            .unwrap();
        let k = system
            .inputs
            .iter()
            .position(|i| i.id == "cancer_history")
            .unwrap();
        mutate(&mut system.inputs[k]);
        let path = format!("{file} $.inputs[{k}].setting");
        let problems = grounding::validate(g, &systems);
        (path, problems)
    };
    let reasons = |path: &str, problems: &[Problem]| -> Vec<String> {
        problems
            .iter()
            .filter(|p| format!("{} {}", p.file, p.path) == path)
            .map(|p| p.reason.clone())
            .collect()
    };
    let (path, problems) = with(&|i| i.setting = Some("known_cancers".into()));
    assert_eq!(
        reasons(&path, &problems),
        ["unknown setting 'known_cancers': lexicon.json lists the settings"]
    );
    let (path, problems) = with(&|i| i.about = None);
    assert_eq!(
        reasons(&path, &problems),
        ["only a boolean input with `about: patient` is read from a setting"]
    );
    let (_, problems) = with(&|_| {});
    assert_eq!(problems, vec![]);
}
