//! `corpus-check [DIR]`: validates a corpus directory (default `corpus/`) without building the
//! worker (examples evaluated, unreachable rules refused, as `build.rs` does), prints every problem as `corpus/<file> at <JSON path>: <reason>`, and on success the
//! figures of the compiled corpus. Exits 1 when there are problems.
//!
//! Run it with `make corpus-check` or `cargo run --features tools --bin corpus-check -- DIR`.

use radref::corpus::{check, compile, load, validate};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("corpus"));
    let (sources, mut problems) = load::load(&dir);
    problems.extend(validate::validate(&sources));
    if problems.is_empty() {
        let found = check::check(&sources);
        for w in &found.warnings {
            eprintln!("warning: {w}");
        }
        if !found.warnings.is_empty() {
            eprintln!("{} warning(s): rules never reached", found.warnings.len());
        }
        problems.extend(found.problems);
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
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compile failed: {e}");
            ExitCode::FAILURE
        }
    }
}
