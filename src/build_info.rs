//! Facts fixed at build time by `build.rs`.

/// SHA-256 (hex) of the corpus sources compiled into this build; also the corpus `ETag`.
pub const CORPUS_HASH: &str = include_str!(concat!(env!("OUT_DIR"), "/corpus_hash.txt"));
