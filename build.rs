//! Build script: validates the corpus and compiles it into `OUT_DIR`.
//!
//! A corpus that breaks a rule of `corpus/README.md` fails the build with every problem listed
//! as `corpus/<file> at <JSON path>: <reason>`, so a bad clinical line can never ship. Then
//! it runs the logic: every example of every decision unit is evaluated and must give its
//! expected answer, and a rule no input can reach stops the build: one shadowed by an earlier
//! `always` or by a repeated condition, or one an exhaustive search over input values never
//! finds deciding (typically a fallback written for an input that is not given).

use radref_corpus as corpus;
use radref_corpus::store::Placement;
use std::path::PathBuf;
use std::{env, fs};

fn write(path: &std::path::Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn main() {
    if let Err(err) = try_main() {
        panic!("\n{err}\n");
    }
}

fn try_main() -> Result<(), String> {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    // RADREF_CORPUS builds over another corpus directory (the scale bench's synthetic ones);
    // the default is the repository's own.
    println!("cargo:rerun-if-env-changed=RADREF_CORPUS");
    let dir = match env::var_os("RADREF_CORPUS") {
        Some(path) if !path.is_empty() => root.join(path),
        _ => root.join("corpus"),
    };
    println!("cargo:rerun-if-changed={}", dir.display());

    let (sources, mut problems) = corpus::load::load(&dir);
    problems.extend(corpus::validate::validate(&sources));
    if problems.is_empty() {
        // Running the logic assumes it is well formed.
        problems.extend(corpus::check::check(&sources).problems);
    }
    if !problems.is_empty() {
        let list: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
        return Err(format!(
            "the corpus has {} problem(s):\n{}",
            problems.len(),
            list.join("\n")
        ));
    }
    let mut compiled = corpus::compile::compile(&sources)?;
    // The system bodies stay in the bundle or go to the static-asset store (corpus::store).
    println!("cargo:rerun-if-env-changed=RADREF_BODY_STORE");
    println!("cargo:rerun-if-env-changed=RADREF_STORE_DIR");
    let (bodies, mut files): (Vec<_>, Vec<_>) = std::mem::take(&mut compiled.files)
        .into_iter()
        .partition(|(name, _)| name.starts_with("systems/"));
    let body_bytes = bodies.iter().map(|(_, b)| b.len()).sum();
    let placement = Placement::choose(env::var("RADREF_BODY_STORE").ok().as_deref(), body_bytes)?;
    let store_dir = match env::var_os("RADREF_STORE_DIR") {
        Some(path) if !path.is_empty() => root.join(path),
        _ => root.join("build/assets").join(corpus::store::STORE_PREFIX),
    };
    let (bundled, store_tables) = match placement {
        Placement::Bundle => {
            files.extend(bodies);
            (files, corpus::store::bundle_tables())
        }
        Placement::Store => {
            let bodies = bodies
                .into_iter()
                .map(|(name, body)| {
                    let slug = name["systems/".len()..]
                        .trim_end_matches(".json")
                        .to_string();
                    (slug, body)
                })
                .collect();
            println!("cargo:rerun-if-env-changed=RADREF_PACK_BYTES");
            let target = corpus::store::pack_target(env::var("RADREF_PACK_BYTES").ok().as_deref())?;
            let packs = corpus::store::pack(&compiled.hash, bodies, target);
            // Packs of an earlier corpus go; a bundle build leaves the directory alone (a host
            // build must not take the packs from under a store build of the same tree).
            if store_dir.exists() {
                fs::remove_dir_all(&store_dir)
                    .map_err(|e| format!("{}: {e}", store_dir.display()))?;
            }
            // The asset path is relative to the assets directory, which holds the store.
            let base = store_dir.parent().unwrap_or(&store_dir);
            for (path, bytes) in &packs.files {
                let target = base.join(path);
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
                }
                write(&target, bytes)?;
            }
            // Deleting the packs (rm -rf build) makes the next build write them again.
            for (path, _) in &packs.files {
                println!("cargo:rerun-if-changed={}", base.join(path).display());
            }
            (files, packs.tables)
        }
    };
    let dir = out.join("compiled");
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    for (name, bytes) in &bundled {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    // include_dir needs the directory even when every body went to the store.
    fs::create_dir_all(dir.join("systems")).map_err(|e| format!("{}: {e}", dir.display()))?;
    write(&out.join("store_tables.rs"), store_tables.as_bytes())?;
    write(&out.join("index.fst"), &compiled.fst)?;
    write(&out.join("postings.bin"), &compiled.postings)?;
    write(&out.join("corpus_tables.rs"), compiled.tables.as_bytes())?;
    write(
        &out.join("knowledge_tables.rs"),
        compiled.knowledge.as_bytes(),
    )?;
    write(&out.join("corpus_hash.txt"), compiled.hash.as_bytes())?;
    Ok(())
}
