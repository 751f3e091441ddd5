//! Clinical knowledge lives in `corpus/`, never in Rust: this test reads every non-test source
//! file under `src/` and `crates/corpus/src/` and fails on a string literal that is a system's
//! slug or a phrase of the grounding knowledge (an organ, modality or measured-noun word, a cue
//! phrase). Code holds algorithms; which words mean which organ and which setting favours
//! which guideline is reviewed, cited data that the build validates.

use crate::corpus::grounding::Grounding;
use crate::corpus::load::load;
use crate::corpus::source::MODALITIES;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Literals that are also the wire names of the corpus schema (a family, an input type; the
/// modality names of `source::MODALITIES`, compared exactly), which code must spell to read and
/// write the format.
const SCHEMA_NAMES: &[&str] = &["incidental", "appropriateness", "number"];

/// Literals that are names of the FHIR R4 format (a resource type, an element, a Bundle
/// type), compared exactly: the FHIR output must spell them.
const FHIR_NAMES: &[&str] = &["Observation", "component", "collection"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // Test modules and host-only test services.
            if path.file_name().is_some_and(|n| n != "tests") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_name().unwrap().to_string_lossy();
            if name != "tests.rs" && !name.ends_with("_tests.rs") {
                out.push(path);
            }
        }
    }
}

/// The code of a file before its first inline test module (`#[cfg(test)]` then `mod x {`):
/// this codebase keeps test modules at the end of a file.
fn non_test_code(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let cut = lines.windows(2).position(|w| {
        let next = w[1].trim_start();
        w[0].trim() == "#[cfg(test)]"
            && (next.starts_with("mod ") || next.starts_with("pub mod "))
            && next.trim_end().ends_with('{')
    });
    lines[..cut.unwrap_or(lines.len())].join("\n")
}

/// The string literals of Rust code, comments skipped (raw strings read to their end).
fn literals(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\'' => {
                // A char literal ('"', '\'') or a lifetime: skip what a quote inside would break.
                if chars.get(i + 2) == Some(&'\'') {
                    i += 3;
                    continue;
                }
                if chars.get(i + 1) == Some(&'\\') && chars.get(i + 3) == Some(&'\'') {
                    i += 4;
                    continue;
                }
                i += 1;
            }
            'r' if chars.get(i + 1) == Some(&'#') && chars.get(i + 2) == Some(&'"') => {
                let start = i + 3;
                i = start;
                while i + 1 < chars.len() && !(chars[i] == '"' && chars[i + 1] == '#') {
                    i += 1;
                }
                out.push(chars[start..i].iter().collect());
                i += 2;
            }
            '"' => {
                let mut s = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    s.push(chars[i]);
                    i += 1;
                }
                out.push(s);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Slugs and the phrases of the grounding knowledge worth looking for (three letters or more).
fn knowledge(root: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let (sources, problems) = load(&root.join("corpus"));
    assert_eq!(problems, vec![]);
    let slugs = sources
        .systems
        .iter()
        .map(|(_, s)| s.slug.clone())
        .collect();
    let Grounding { lexicon, cues, .. } = sources.grounding.unwrap();
    let phrases = lexicon
        .organs
        .iter()
        .flat_map(|o| o.phrases.iter())
        .chain(lexicon.modalities.iter().flat_map(|m| m.phrases.iter()))
        .chain(lexicon.measured_nouns.iter().flat_map(|m| m.phrases.iter()))
        .chain(cues.cues.iter().flat_map(|c| c.phrases.iter()))
        .filter(|p| p.len() >= 3 && !SCHEMA_NAMES.contains(&p.as_str()))
        .cloned()
        .collect();
    (slugs, phrases)
}

#[test]
fn no_slug_or_clinical_phrase_is_written_in_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (slugs, phrases) = knowledge(root);
    assert!(slugs.len() >= 40 && phrases.len() >= 200);
    // The worker and the corpus crate (build-time code is code too).
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates/corpus/src"), &mut files);
    assert!(files.len() >= 40);
    let mut found = Vec::new();
    for file in &files {
        let code = non_test_code(&std::fs::read_to_string(file).unwrap());
        for literal in literals(&code) {
            let folded = literal.to_lowercase();
            let schema =
                MODALITIES.contains(&literal.as_str()) || FHIR_NAMES.contains(&literal.as_str());
            if slugs.contains(&literal) || (phrases.contains(&folded) && !schema) {
                found.push(format!("{}: \"{literal}\"", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "clinical knowledge written in code (move it to corpus/, see corpus/README.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reader_finds_literals_outside_comments_and_tests() {
    let code = "// \"in a comment\"\nlet a = \"lung\"; let c = '\"'; let r = r#\"raw \"x\"\"#;\n\
                #[cfg(test)]\nmod tests {\n    \"fleischner-2017\"\n}\n";
    let literals = literals(&non_test_code(code));
    assert_eq!(literals, ["lung", "raw \"x\""]);
}
