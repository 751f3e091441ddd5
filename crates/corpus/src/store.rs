//! Where the prebuilt system bodies go: into the worker bundle, or into packs that the
//! platform's static-asset store serves beside it.
//!
//! The platform limits a worker's compressed size (3 MB on the Workers free plan, 10 MB on the
//! paid plan). The search index and the tables grow slowly with the corpus; the system bodies
//! (each system's detail, which the evaluator, grounding and comparison also parse) are most of
//! its growth. Up to [`STORE_THRESHOLD`] bytes of bodies they are compiled into the bundle, as
//! before; past it (or when `RADREF_BODY_STORE=assets` asks) the build writes them into packs
//! of about [`PACK_TARGET`] bytes under `corpus-store/<corpus hash>/`, which deploy with the
//! worker as Workers static assets, and the bundle keeps only a table of where each body sits.
//! An isolate reads a pack once, on the first request that meets a body in it.

use std::fmt::Write;

/// Bytes of prebuilt bodies above which they leave the bundle (about 180 systems of today's
/// size). Measured with `make bench-scale`: with every body in the bundle, 200 systems (7.5 MB
/// of bodies) made a 2.67 MB gzipped bundle and 500 systems 5.2 MB, so past this size a bundle
/// build would leave the free plan's 3 MB.
pub const STORE_THRESHOLD: usize = 6 * 1024 * 1024;

/// Bytes a pack holds at most (a single body larger than this gets a pack of its own). An
/// isolate reads a pack when a request first meets a body in it, so a pack is what one detail
/// costs to read and to hold: measured at 1,000 systems (`make bench-scale`), packs of 1 MiB
/// made the first detail 40 ms and 4 MB of memory, packs of 4 MiB 90 ms and 11 MB. Static
/// assets may be up to 25 MiB each and 20,000 per worker.
pub const PACK_TARGET: usize = 1024 * 1024;

/// The bytes a pack holds at most: `RADREF_PACK_BYTES` when set (a test build asks for small
/// packs, so that its few systems still spread over several), else [`PACK_TARGET`].
pub fn pack_target(requested: Option<&str>) -> Result<usize, String> {
    match requested.map(str::trim).filter(|r| !r.is_empty()) {
        None => Ok(PACK_TARGET),
        Some(r) => {
            r.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                format!("RADREF_PACK_BYTES is '{r}': give a number of bytes above 0")
            })
        }
    }
}

/// The asset directory the packs live under.
pub const STORE_PREFIX: &str = "corpus-store";

/// Where the bodies of a build live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Bundle,
    Store,
}

impl Placement {
    /// The placement `RADREF_BODY_STORE` asks for (`bundle`, `assets`, or `auto` and unset: by
    /// size against [`STORE_THRESHOLD`]).
    pub fn choose(requested: Option<&str>, body_bytes: usize) -> Result<Placement, String> {
        match requested.map(str::trim).unwrap_or("") {
            "bundle" => Ok(Placement::Bundle),
            "assets" => Ok(Placement::Store),
            "" | "auto" if body_bytes > STORE_THRESHOLD => Ok(Placement::Store),
            "" | "auto" => Ok(Placement::Bundle),
            other => Err(format!(
                "RADREF_BODY_STORE is '{other}': use bundle, assets or auto"
            )),
        }
    }
}

/// The packs of a store build and the table the worker finds each body by.
#[derive(Debug)]
pub struct Packs {
    /// Each pack's asset path (`corpus-store/<hash>/<n>.bin`) and bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Rust source of `STORE_PACKS` and `STORE_BODIES`.
    pub tables: String,
}

/// The tables of a bundle build: no packs, no bodies outside the bundle.
pub fn bundle_tables() -> String {
    tables(&[], &[])
}

/// Packs `bodies` (slug and detail body) in slug order, a new pack starting when the next body
/// would take the current one past `target` bytes ([`pack_target`]).
pub fn pack(hash: &str, mut bodies: Vec<(String, Vec<u8>)>, target: usize) -> Packs {
    bodies.sort_by(|a, b| a.0.cmp(&b.0));
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut index = Vec::with_capacity(bodies.len());
    for (slug, body) in bodies {
        let full = files
            .last()
            .is_none_or(|(_, pack)| !pack.is_empty() && pack.len() + body.len() > target);
        if full {
            let path = format!("{STORE_PREFIX}/{hash}/{}.bin", files.len());
            files.push((path, Vec::new()));
        }
        let number = files.len() - 1;
        let pack = &mut files[number].1;
        index.push((slug, number, pack.len(), body.len()));
        pack.extend_from_slice(&body);
    }
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let tables = tables(&paths, &index);
    Packs { files, tables }
}

fn tables(paths: &[&str], index: &[(String, usize, usize, usize)]) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "/// The asset paths of the body packs; empty when the bodies are in the bundle."
    )
    .unwrap();
    writeln!(out, "pub static STORE_PACKS: &[&str] = &{paths:?};").unwrap();
    writeln!(
        out,
        "/// Each stored body as (slug, pack, offset, length), sorted by slug."
    )
    .unwrap();
    writeln!(
        out,
        "pub static STORE_BODIES: &[(&str, u16, u32, u32)] = &["
    )
    .unwrap();
    for (slug, pack, offset, len) in index {
        writeln!(out, "    ({slug:?}, {pack}, {offset}, {len}),").unwrap();
    }
    writeln!(out, "];").unwrap();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_follows_the_request_then_the_size() {
        assert_eq!(Placement::choose(None, 10), Ok(Placement::Bundle));
        assert_eq!(
            Placement::choose(None, STORE_THRESHOLD),
            Ok(Placement::Bundle)
        );
        assert_eq!(
            Placement::choose(None, STORE_THRESHOLD + 1),
            Ok(Placement::Store)
        );
        assert_eq!(
            Placement::choose(Some("auto"), STORE_THRESHOLD + 1),
            Ok(Placement::Store)
        );
        assert_eq!(Placement::choose(Some("assets"), 10), Ok(Placement::Store));
        assert_eq!(
            Placement::choose(Some("bundle"), usize::MAX),
            Ok(Placement::Bundle)
        );
        assert!(Placement::choose(Some("kv"), 10)
            .unwrap_err()
            .contains("kv"));
    }

    #[test]
    fn bodies_are_packed_in_slug_order_and_found_where_the_table_says() {
        let big = PACK_TARGET / 2 + 1;
        let bodies = vec![
            ("c".to_string(), vec![b'c'; big]),
            ("a".to_string(), vec![b'a'; 10]),
            ("b".to_string(), vec![b'b'; big]),
            ("d".to_string(), vec![b'd'; PACK_TARGET + 5]),
        ];
        let packs = pack("h", bodies, PACK_TARGET);
        let paths: Vec<&str> = packs.files.iter().map(|(p, _)| p.as_str()).collect();
        // a and b fit one pack; c would take it past the target; d is larger than a pack.
        assert_eq!(
            paths,
            [
                "corpus-store/h/0.bin",
                "corpus-store/h/1.bin",
                "corpus-store/h/2.bin"
            ]
        );
        assert_eq!(packs.files[0].1.len(), 10 + big);
        assert_eq!(&packs.files[0].1[10..12], b"bb");
        assert!(
            packs.tables.contains("(\"a\", 0, 0, 10),"),
            "{}",
            packs.tables
        );
        assert!(packs.tables.contains(&format!("(\"b\", 0, 10, {big}),")));
        assert!(packs.tables.contains(&format!("(\"c\", 1, 0, {big}),")));
        assert!(packs
            .tables
            .contains(&format!("(\"d\", 2, 0, {}),", PACK_TARGET + 5)));
    }

    #[test]
    fn the_pack_size_is_the_default_or_a_positive_number_of_bytes() {
        assert_eq!(pack_target(None), Ok(PACK_TARGET));
        assert_eq!(pack_target(Some(" ")), Ok(PACK_TARGET));
        assert_eq!(pack_target(Some("65536")), Ok(65536));
        assert!(pack_target(Some("0")).unwrap_err().contains("'0'"));
        assert!(pack_target(Some("4MB")).unwrap_err().contains("'4MB'"));
        let bodies = (0..5).map(|i| (format!("s{i}"), vec![b'x'; 40])).collect();
        assert_eq!(pack("h", bodies, 100).files.len(), 3);
    }

    #[test]
    fn a_bundle_build_has_no_packs() {
        let t = bundle_tables();
        assert!(t.contains("STORE_PACKS: &[&str] = &[];"), "{t}");
        assert!(
            t.contains("STORE_BODIES: &[(&str, u16, u32, u32)] = &[\n];"),
            "{t}"
        );
    }
}
