//! `bench-export OUT_DIR`: writes what the HTTP benchmark needs from the compiled corpus, so
//! the competitor and the query mix come from the same build as the worker, never from a copy.
//!
//! - `docs.json`: the search documents of the JavaScript competitor (`benches/minisearch`): one
//!   per system (names, abbreviations, synonyms, summary) and one per outcome (code, label,
//!   definition, and the system's names so "Bosniak IIF" can find it there too).
//! - `queries.txt`: the query mix, one URL-encoded `q` value per line, drawn with a fixed seed
//!   from the corpus: system names, category codes, finding phrases, and a typo of each.
//! - `expected.tsv`: each query's system slug (tab-separated), for the answer-quality row.
//! - `slugs.txt`: every system slug, for the detail route's load.
//!
//! Run by `scripts/bench.sh` through `cargo run --features tools --bin bench-export`.

use radref::corpus::compiled::{detail, SYSTEMS};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

/// How many queries of each kind are drawn before typos are added.
const PER_KIND: usize = 70;
/// The seed of the query mix: a fixed seed keeps the mix the same from run to run.
const SEED: u64 = 0x5eed_0016;

fn main() -> ExitCode {
    let Some(out) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: bench-export OUT_DIR");
        return ExitCode::from(2);
    };
    if let Err(e) = export(&out) {
        eprintln!("bench-export: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn export(out: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut docs = Vec::new();
    // (query, slug) by kind.
    let (mut names, mut codes, mut phrases) = (Vec::new(), Vec::new(), Vec::new());
    for entry in SYSTEMS {
        let detail: Value = detail(entry.slug)
            .and_then(|b| serde_json::from_slice(b).ok())
            .ok_or_else(|| format!("no detail for {}", entry.slug))?;
        let strings = |field: &str| -> Vec<String> {
            detail[field]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let abbreviations = strings("abbreviations");
        let synonyms = strings("synonyms");
        docs.push(json!({
            "id": format!("s:{}", entry.slug),
            "type": "system",
            "slug": entry.slug,
            "system": entry.short_name,
            "name": entry.name,
            "short_name": entry.short_name,
            "abbreviations": abbreviations.join(" "),
            "synonyms": synonyms.join(" "),
            "summary": detail["summary"].as_str().unwrap_or_default(),
        }));
        for name in [entry.name, entry.short_name]
            .into_iter()
            .map(str::to_string)
            .chain(abbreviations.iter().cloned())
            .chain(synonyms.iter().cloned())
        {
            names.push((name, entry.slug));
        }
        let system_names = std::iter::once(entry.short_name.to_string())
            .chain(abbreviations.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        for outcome in detail["outcomes"].as_array().into_iter().flatten() {
            let code = outcome["code"].as_str().unwrap_or_default();
            let label = outcome["label"].as_str().unwrap_or_default();
            let definition = outcome["definition"]["text"].as_str().unwrap_or_default();
            docs.push(json!({
                "id": format!("o:{}:{}", entry.slug, code),
                "type": "outcome",
                "slug": entry.slug,
                "system": entry.short_name,
                "code": code,
                "label": label,
                "definition": definition,
                "system_names": system_names,
            }));
            // Codes a reader types ("4B", "IIF", "LR-5"), not the long identifiers of some
            // recommendations.
            if code.len() <= 8 {
                codes.push((format!("{} {}", entry.short_name, code), entry.slug));
                for name in &abbreviations {
                    codes.push((format!("{name} {code}"), entry.slug));
                }
            }
            for text in [label, definition] {
                let words: Vec<&str> = text
                    .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '.')
                    .filter(|w| !w.is_empty())
                    .collect();
                for width in 2..=4 {
                    for window in words.windows(width) {
                        // A phrase of words a reader would type: some long word in it.
                        if window.iter().any(|w| w.len() >= 6) {
                            phrases.push((window.join(" ").to_lowercase(), entry.slug));
                        }
                    }
                }
            }
        }
    }
    let mut rng = Rng(SEED);
    let mut seen = BTreeSet::new();
    let mut mix: Vec<(String, &str)> = Vec::new();
    for pool in [&names, &codes, &phrases] {
        let mut drawn = 0;
        let mut tries = 0;
        while drawn < PER_KIND && tries < 100 * PER_KIND {
            tries += 1;
            let (q, slug) = &pool[rng.below(pool.len())];
            if !seen.insert(q.to_lowercase()) {
                continue;
            }
            mix.push((q.clone(), slug));
            drawn += 1;
            if let Some(typo) = typo(q, &mut rng) {
                if seen.insert(typo.to_lowercase()) {
                    mix.push((typo, slug));
                }
            }
        }
    }
    rng.shuffle(&mut mix);
    let encoded: Vec<String> = mix.iter().map(|(q, _)| encode(q)).collect();
    write(out, "docs.json", &serde_json::to_string(&docs).unwrap())?;
    write(out, "queries.txt", &(encoded.join("\n") + "\n"))?;
    let expected: Vec<String> = mix
        .iter()
        .zip(&encoded)
        .map(|((_, slug), q)| format!("{q}\t{slug}"))
        .collect();
    write(out, "expected.tsv", &(expected.join("\n") + "\n"))?;
    let slugs: Vec<&str> = SYSTEMS.iter().map(|s| s.slug).collect();
    write(out, "slugs.txt", &(slugs.join("\n") + "\n"))?;
    eprintln!(
        "bench-export: {} documents, {} queries into {}",
        docs.len(),
        mix.len(),
        out.display()
    );
    Ok(())
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> Result<(), String> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// One typo in the longest word of at least five letters: a swap of two neighbours, a
/// dropped letter, a doubled letter or a neighbouring letter instead, as people mistype.
fn typo(query: &str, rng: &mut Rng) -> Option<String> {
    let words: Vec<&str> = query.split(' ').collect();
    let (at, word) = words
        .iter()
        .enumerate()
        .filter(|(_, w)| w.chars().count() >= 5 && w.chars().all(|c| c.is_ascii_alphabetic()))
        .max_by_key(|(_, w)| w.len())?;
    let mut b: Vec<u8> = word.bytes().collect();
    let i = 1 + rng.below(b.len() - 2);
    match rng.below(4) {
        0 => b.swap(i, i + 1),
        1 => {
            b.remove(i);
        }
        2 => b.insert(i, b[i]),
        _ => b[i] = if b[i] == b'z' { b'y' } else { b[i] + 1 },
    }
    let mut out: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    out[at] = String::from_utf8(b).ok()?;
    Some(out.join(" "))
}

/// A query string value: `+` for a space, `%XX` for anything but letters, digits and `-._~`.
fn encode(q: &str) -> String {
    let mut out = String::new();
    for b in q.bytes() {
        match b {
            b' ' => out.push('+'),
            b if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => out.push(b as char),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// xorshift64*: enough to draw a fixed mix, and no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}
