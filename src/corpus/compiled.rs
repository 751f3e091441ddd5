//! The compiled corpus, embedded in the binary: static tables, prebuilt bodies and the index.
//!
//! Everything here was produced by `build.rs` (see `compile`); nothing is parsed at runtime.

use super::source::{Family, Status};
use include_dir::{include_dir, Dir};

/// A system as the list and filter routes need it.
#[derive(Debug)]
pub struct SystemEntry {
    pub slug: &'static str,
    pub name: &'static str,
    pub short_name: &'static str,
    /// Other names the system goes by, as the source writes them (grounding recognises a
    /// finding that names the system explicitly).
    pub abbreviations: &'static [&'static str],
    /// Longer alternative names and category names ("Bosniak IIF", "TR4").
    pub synonyms: &'static [&'static str],
    pub family: Family,
    pub status: Status,
    pub organs: &'static [&'static str],
    pub modalities: &'static [&'static str],
    /// The effective date of the version.
    pub effective: &'static str,
    /// A later version of it is in the corpus (`currency.superseded_by`).
    pub superseded: bool,
    /// The list item, as JSON.
    pub summary_json: &'static str,
}

/// Whether a search document is a system or an outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocKind {
    System,
    Outcome,
}

/// A search document.
#[derive(Debug)]
pub struct DocEntry {
    pub kind: DocKind,
    /// Index into [`SYSTEMS`].
    pub system: u16,
    /// The outcome code (empty for a system).
    pub code: &'static str,
    pub label: &'static str,
}

/// Events a page of the changes list holds when no limit is given, and the most it holds.
pub const CHANGES_DEFAULT_LIMIT: usize = 50;
pub const CHANGES_MAX_LIMIT: usize = 500;

/// A version event, newest first in [`EVENTS`].
#[derive(Debug)]
pub struct EventEntry {
    /// The date as a sortable `YYYY-MM-DD` key.
    pub date: &'static str,
    /// Stable identifier (also the RSS guid).
    pub id: &'static str,
    pub json: &'static str,
}

/// Corpus-wide counts.
#[derive(Debug)]
pub struct Totals {
    pub systems: u32,
    pub lines: u32,
    pub draft_lines: u32,
    pub verified_lines: u32,
    pub outcomes: u32,
    pub decision_units: u32,
    pub rules: u32,
    pub terms: u32,
}

include!(concat!(env!("OUT_DIR"), "/corpus_tables.rs"));

/// The prebuilt bodies: `systems/<slug>.json` (unless the build put them in the store),
/// `organs.json`, `coverage.json`, `changes.xml`.
static FILES: Dir<'static> = include_dir!("$OUT_DIR/compiled");

/// The `fst` map from term to term number.
pub static FST: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/index.fst"));

/// The postings of each term number.
pub static POSTINGS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/postings.bin"));

/// A prebuilt body by its path inside the compiled directory.
pub fn file(path: &str) -> Option<&'static [u8]> {
    FILES.get_file(path).map(|f| f.contents())
}

include!(concat!(env!("OUT_DIR"), "/store_tables.rs"));

/// Whether this build keeps the system bodies in the static-asset store (`STORE_PACKS`)
/// rather than in the bundle: the build chooses by size (`corpus::store`).
pub fn bodies_in_store() -> bool {
    !STORE_PACKS.is_empty()
}

/// The packs of the store, each read by an isolate on the first request that needs a body in
/// it (`STORE_PACKS` order).
fn pack_cells() -> &'static [std::sync::OnceLock<Box<[u8]>>] {
    static PACKS: std::sync::OnceLock<Vec<std::sync::OnceLock<Box<[u8]>>>> =
        std::sync::OnceLock::new();
    PACKS.get_or_init(|| {
        STORE_PACKS
            .iter()
            .map(|_| std::sync::OnceLock::new())
            .collect()
    })
}

std::thread_local! {
    /// The packs a body was asked of and found unread, since [`noting_unread`] began.
    static UNREAD: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `work` and returns, with its result, the packs of the store it asked a body of and
/// found unread (sorted, each once; always empty in a bundle build). Such a body read as
/// absent, so the dispatcher reads those packs and runs the work again (`app`): the work must
/// be a pure reading of the corpus.
pub fn noting_unread<T>(work: impl FnOnce() -> T) -> (T, Vec<usize>) {
    UNREAD.with(|u| u.borrow_mut().clear());
    let result = work();
    let mut unread = UNREAD.with(|u| std::mem::take(&mut *u.borrow_mut()));
    unread.sort_unstable();
    unread.dedup();
    (result, unread)
}

/// How many of the store's packs this isolate has read (0 of 0 in a bundle build).
pub fn packs_read() -> usize {
    pack_cells().iter().filter(|c| c.get().is_some()).count()
}

/// Every pack this isolate has not read yet, for an operation that reads bodies it cannot
/// name beforehand and cannot run twice (a template's bindings, checked before it is stored).
pub fn unread_packs() -> Vec<usize> {
    let cells = pack_cells();
    (0..cells.len())
        .filter(|&i| cells[i].get().is_none())
        .collect()
}

/// Takes the pack at `index` of `STORE_PACKS` as the isolate read it from the store, after
/// checking that every body the table places in it lies inside. A second read of the same
/// pack (two requests raced to read it) keeps the first.
pub fn install_pack(index: usize, bytes: Vec<u8>) -> Result<(), String> {
    let path = STORE_PACKS
        .get(index)
        .ok_or_else(|| format!("no pack {index}"))?;
    for (slug, pack, offset, len) in STORE_BODIES {
        if *pack as usize == index && bytes.len() < *offset as usize + *len as usize {
            return Err(format!(
                "{path} is {} bytes, too short for {slug}",
                bytes.len()
            ));
        }
    }
    let _ = pack_cells()[index].set(bytes.into_boxed_slice());
    Ok(())
}

/// The detail body of a system: from the bundle, or from its pack of the store once read.
/// `None` for an unknown slug, and for a stored body whose pack is unread: that pack is
/// noted (see [`noting_unread`]).
pub fn detail(slug: &str) -> Option<&'static [u8]> {
    if !super::syntax::is_slug(slug) {
        return None;
    }
    if !bodies_in_store() {
        return file(&format!("systems/{slug}.json"));
    }
    let i = STORE_BODIES
        .binary_search_by(|(s, ..)| (*s).cmp(slug))
        .ok()?;
    let (_, pack, offset, len) = STORE_BODIES[i];
    let start = offset as usize;
    match pack_cells().get(pack as usize)?.get() {
        Some(bytes) => bytes.get(start..start + len as usize),
        None => {
            UNREAD.with(|u| u.borrow_mut().push(pack as usize));
            None
        }
    }
}

/// The system of a slug.
pub fn system(slug: &str) -> Option<&'static SystemEntry> {
    SYSTEMS.iter().find(|s| s.slug == slug)
}

/// The detail of the system at `index` of [`SYSTEMS`] as a JSON value, parsed once per isolate
/// on first use (grounding reads lines selectively; the read routes serve the bytes as they
/// are).
pub fn detail_value(index: usize) -> &'static serde_json::Value {
    use std::sync::OnceLock;
    static PARSED: OnceLock<Vec<OnceLock<serde_json::Value>>> = OnceLock::new();
    let cells = PARSED.get_or_init(|| SYSTEMS.iter().map(|_| OnceLock::new()).collect());
    static UNREAD: serde_json::Value = serde_json::Value::Null;
    if let Some(value) = cells[index].get() {
        return value;
    }
    // An unread pack is not cached as absent: the work runs again once it is read.
    let Some(bytes) = detail(SYSTEMS[index].slug) else {
        return &UNREAD;
    };
    cells[index].get_or_init(|| serde_json::from_slice(bytes).unwrap_or(serde_json::Value::Null))
}

/// A system's logic as the evaluator and the version comparison read it: its inputs, decision
/// units (with their examples), outcomes, references, currency, lineage and links, parsed from its detail body once per isolate on first
/// use. The detail is the source's own serialisation, so it parses back into the same types.
#[derive(Debug, serde::Deserialize)]
pub struct Logic {
    pub slug: String,
    pub name: String,
    pub short_name: String,
    pub version: String,
    /// The scope and applicability lines.
    pub scope: Vec<super::source::Line>,
    pub inputs: Vec<super::source::Input>,
    pub decision_units: Vec<super::source::DecisionUnit>,
    pub outcomes: Vec<super::source::Outcome>,
    pub references: std::collections::BTreeMap<String, super::source::Reference>,
    /// Which versions it supersedes and is superseded by.
    pub currency: super::source::Currency,
    /// Its dated version events.
    pub lineage: Vec<super::source::LineageEvent>,
    /// Its links to other systems (a `supersedes` link may map ids).
    pub crossrefs: Vec<Link>,
    /// Its external codes (a RadElement set, a SNOMED CT observable).
    #[serde(default)]
    pub codes: Vec<super::source::Code>,
}

/// A link of a system's detail as the version comparison reads it (the detail adds fields of
/// its own to the source's crossref, such as whether the target is in the corpus).
#[derive(Debug, serde::Deserialize)]
pub struct Link {
    pub relation: super::source::Relation,
    #[serde(default)]
    pub slug: Option<String>,
    #[serde(default)]
    pub maps: Option<super::source::Correspondence>,
}

impl Logic {
    /// The evaluator's view.
    pub fn model(&self) -> super::evaluate::Model<'_> {
        super::evaluate::Model {
            inputs: &self.inputs,
            units: &self.decision_units,
            outcomes: &self.outcomes,
        }
    }
}

/// The logic of the system at `index` of [`SYSTEMS`]; `None` only if its detail failed to
/// parse, which the host tests rule out for every system.
pub fn logic(index: usize) -> Option<&'static Logic> {
    use std::sync::OnceLock;
    static PARSED: OnceLock<Vec<OnceLock<Option<Logic>>>> = OnceLock::new();
    let cells = PARSED.get_or_init(|| SYSTEMS.iter().map(|_| OnceLock::new()).collect());
    let cell = cells.get(index)?;
    if let Some(logic) = cell.get() {
        return logic.as_ref();
    }
    // An unread pack is not cached as absent: the work runs again once it is read.
    let bytes = detail(SYSTEMS[index].slug)?;
    cell.get_or_init(|| serde_json::from_slice(bytes).ok())
        .as_ref()
}
