//! `corpus-check [DIR]`: validates a corpus directory (default `corpus/`) without building the
//! worker (examples evaluated, unreachable rules refused, as `build.rs` does), prints every
//! problem as `corpus/<file> at <JSON path>: <reason>`, and on success the figures of the
//! compiled corpus, the units too large for the search for unreachable rules, and what the
//! grounding knowledge reaches (systems no cue names, organs without words). Exits 1 when
//! there are problems.
//!
//! Run it with `make corpus-check` or `cargo run --features tools --bin corpus-check -- DIR`.

use radref::corpus::{check, compile, grounding, load, validate};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("corpus"));
    let (sources, mut problems) = load::load(&dir);
    problems.extend(validate::validate(&sources));
    let mut unsearched = Vec::new();
    if problems.is_empty() {
        let found = check::check(&sources);
        problems.extend(found.problems);
        unsearched = found.unsearched;
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("{p}");
        }
        eprintln!("{} problem(s) in {}", problems.len(), dir.display());
        return ExitCode::FAILURE;
    }
    match compile::compile(&sources) {
        Ok(c) => {
            let t = &c.totals;
            println!(
                "{}: valid. {} systems, {} clinical lines ({} draft, {} verified), {} outcomes, \
                 {} decision units, {} rules, {} inputs, {} examples (all pass); index: {} terms, fst {} bytes, \
                 postings {} bytes; prebuilt bodies {} bytes; hash {}",
                dir.display(),
                sources.systems.len(),
                t.lines,
                t.draft_lines,
                t.verified_lines,
                t.outcomes,
                t.decision_units,
                t.rules,
                t.inputs,
                t.examples,
                c.terms,
                c.fst.len(),
                c.postings.len(),
                c.files.iter().map(|(_, b)| b.len()).sum::<usize>(),
                c.hash
            );
            let mut with: Vec<String> = Vec::new();
            let mut without = 0;
            for (_, system) in &sources.systems {
                let n: usize = system.decision_units.iter().map(|u| u.examples.len()).sum();
                if n > 0 {
                    with.push(format!("{} {n}", system.slug));
                } else if !system.decision_units.is_empty() {
                    without += 1;
                }
            }
            println!(
                "examples per system: {}{}",
                if with.is_empty() {
                    "none".to_string()
                } else {
                    with.join(", ")
                },
                if without > 0 {
                    format!("; {without} systems with decision units have none yet")
                } else {
                    String::new()
                }
            );
            // Which systems carry external codes (RadElement, RadLex, SNOMED CT, LOINC, DICOM).
            let (coded, uncoded): (Vec<_>, Vec<_>) = sources
                .systems
                .iter()
                .map(|(_, s)| (s.slug.as_str(), radref::corpus::compile::all_codes(s).len()))
                .partition(|(_, n)| *n > 0);
            println!(
                "external codes: {} systems with codes ({}); without: {}",
                coded.len(),
                coded
                    .iter()
                    .map(|(s, n)| format!("{s} {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                uncoded
                    .iter()
                    .map(|(s, _)| *s)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            // The guideline inputs each system knowingly does not model (its gaps of kind
            // `input`): what the evaluator cannot be asked yet.
            let not_modelled: Vec<String> = sources
                .systems
                .iter()
                .filter_map(|(_, s)| {
                    let topics: Vec<&str> = s
                        .gaps
                        .iter()
                        .filter(|g| g.kind == radref::corpus::source::GapKind::Input)
                        .map(|g| g.topic.as_str())
                        .collect();
                    (!topics.is_empty()).then(|| format!("{} ({})", s.slug, topics.join("; ")))
                })
                .collect();
            println!(
                "inputs not modelled yet: {}",
                if not_modelled.is_empty() {
                    "none listed".to_string()
                } else {
                    not_modelled.join(" | ")
                }
            );
            println!(
                "unreachable rules: none{}",
                if unsearched.is_empty() {
                    " (every unit searched exhaustively)".to_string()
                } else {
                    format!(
                        "; {} unit(s) too large for the exhaustive search, checked for `always` \
                         and repeated conditions only: {}",
                        unsearched.len(),
                        unsearched
                            .iter()
                            .map(|p| format!("{}/{} {}", dir.display(), p.file, p.path))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            );
            if let Some(g) = &sources.grounding {
                let c = grounding::coverage(g, &sources.systems);
                let list = |v: &[String]| {
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.join(", ")
                    }
                };
                println!(
                    "grounding knowledge: {} organs ({} phrases), {} modalities, {} cues; \
                     systems no cue names by system or lineage ({}): {}; of those, reached only \
                     by a family-wide cue: {}; organs without lexicon words: {}",
                    g.lexicon.organs.len(),
                    c.organ_phrases,
                    g.lexicon.modalities.len(),
                    c.cues,
                    c.without_cue.len(),
                    list(&c.without_cue),
                    list(&c.family_only),
                    list(&c.organs_without_words),
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compile failed: {e}");
            ExitCode::FAILURE
        }
    }
}
