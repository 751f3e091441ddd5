//! Reads the corpus directory into [`Sources`], reporting parse errors with their JSON path.
//!
//! Used by `build.rs` and by host tests; the worker never reads files.

use super::grounding::{self, Grounding};
use super::problem::Problem;
use super::source::{CoverageFile, System};
use std::fs;
use std::path::Path;

/// Everything the corpus directory holds, parsed.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// `(file name relative to corpus/, system)`, sorted by file name.
    pub systems: Vec<(String, System)>,
    /// The published slugs of `slugs.txt`, in file order.
    pub registry: Vec<String>,
    pub coverage: Option<CoverageFile>,
    /// `grounding/`: the knowledge that chooses between systems (absent in test corpora).
    pub grounding: Option<Grounding>,
}

/// Reads `systems/*.json`, `slugs.txt`, `coverage.json` and `grounding/*.json` under `root`.
/// Files that do not parse are reported as problems and left out of the result; a corpus
/// without a `grounding/` directory loads without grounding knowledge (the build refuses it).
pub fn load(root: &Path) -> (Sources, Vec<Problem>) {
    let mut sources = Sources::default();
    let mut problems = Vec::new();
    let dir = root.join("systems");
    let mut names: Vec<String> = match fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) => {
            problems.push(problem(
                "systems/",
                "$",
                format!("cannot read directory: {e}"),
            ));
            Vec::new()
        }
    };
    names.sort();
    for name in names {
        let file = format!("systems/{name}");
        if !name.ends_with(".json") {
            problems.push(problem(
                &file,
                "$",
                "only <slug>.json files belong in systems/",
            ));
            continue;
        }
        match read_json::<System>(&root.join(&file)) {
            Ok(system) => sources.systems.push((file, system)),
            Err((path, reason)) => problems.push(problem(&file, &path, reason)),
        }
    }
    match fs::read_to_string(root.join("slugs.txt")) {
        Ok(text) => {
            sources.registry = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from)
                .collect()
        }
        Err(e) => problems.push(problem("slugs.txt", "$", format!("cannot read: {e}"))),
    }
    let coverage = root.join("coverage.json");
    if coverage.exists() {
        match read_json::<CoverageFile>(&coverage) {
            Ok(c) => sources.coverage = Some(c),
            Err((path, reason)) => problems.push(problem("coverage.json", &path, reason)),
        }
    }
    if root.join("grounding").is_dir() {
        let lexicon = read_json(&root.join(grounding::LEXICON_FILE))
            .map_err(|(path, reason)| problem(grounding::LEXICON_FILE, &path, reason));
        let cues = read_json(&root.join(grounding::CUES_FILE))
            .map_err(|(path, reason)| problem(grounding::CUES_FILE, &path, reason));
        let ranking = read_json(&root.join(grounding::RANKING_FILE))
            .map_err(|(path, reason)| problem(grounding::RANKING_FILE, &path, reason));
        let assertions = read_json(&root.join(grounding::ASSERTIONS_FILE))
            .map_err(|(path, reason)| problem(grounding::ASSERTIONS_FILE, &path, reason));
        match (lexicon, cues, ranking, assertions) {
            (Ok(lexicon), Ok(cues), Ok(ranking), Ok(assertions)) => {
                sources.grounding = Some(Grounding {
                    lexicon,
                    cues,
                    ranking,
                    assertions,
                })
            }
            (lexicon, cues, ranking, assertions) => {
                problems.extend(lexicon.err());
                problems.extend(cues.err());
                problems.extend(ranking.err());
                problems.extend(assertions.err());
            }
        }
    }
    (sources, problems)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, (String, String)> {
    let text =
        fs::read_to_string(path).map_err(|e| ("$".to_string(), format!("cannot read: {e}")))?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            "$".to_string()
        } else {
            format!("$.{path}")
        };
        (path, e.into_inner().to_string())
    })?;
    de.end().map_err(|e| ("$".to_string(), e.to_string()))?;
    Ok(value)
}

fn problem(file: &str, path: &str, reason: impl Into<String>) -> Problem {
    Problem {
        file: file.to_string(),
        path: path.to_string(),
        reason: reason.into(),
    }
}
