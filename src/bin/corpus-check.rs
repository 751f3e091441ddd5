//! `corpus-check [DIR]`: validates a corpus directory (default `corpus/`) without building the
//! worker, prints every problem as `corpus/<file> at <JSON path>: <reason>`, and on success the
//! figures of the compiled corpus. Exits 1 when there are problems.
//!
//! Run it with `make corpus-check` or `cargo run --features tools --bin corpus-check -- DIR`.

use radref::corpus::{compile, load, validate};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("corpus"));
    let (sources, mut problems) = load::load(&dir);
    problems.extend(validate::validate(&sources));
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
                 {} decision units, {} rules, {} inputs; index: {} terms, fst {} bytes, \
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
                c.terms,
                c.fst.len(),
                c.postings.len(),
                c.files.iter().map(|(_, b)| b.len()).sum::<usize>(),
                c.hash
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compile failed: {e}");
            ExitCode::FAILURE
        }
    }
}
