//! Build script: validates and compiles the corpus into `OUT_DIR`.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    if let Err(err) = try_main() {
        panic!("corpus build failed: {err}");
    }
}

fn try_main() -> Result<(), String> {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let corpus = root.join("corpus");
    println!("cargo:rerun-if-changed={}", corpus.display());
    let hash = hash_dir(&corpus)?;
    fs::write(out.join("corpus_hash.txt"), hash).map_err(|e| e.to_string())?;
    Ok(())
}

/// SHA-256 over the relative paths and contents of every file under `dir`, in sorted order.
fn hash_dir(dir: &Path) -> Result<String, String> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    for file in files {
        let rel = file.strip_prefix(dir).unwrap_or(&file);
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update(fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?);
        hasher.update([0]);
    }
    Ok(hex::encode(hasher.finalize()))
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}
