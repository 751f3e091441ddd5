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

/// The packs of the store, once an isolate has read them.
static PACKS: std::sync::OnceLock<Vec<Box<[u8]>>> = std::sync::OnceLock::new();

/// Whether the bodies can be read now: always in a bundle build, after [`install_packs`] in a
/// store build.
pub fn bodies_ready() -> bool {
    !bodies_in_store() || PACKS.get().is_some()
}

/// Takes the packs an isolate read from the store, in `STORE_PACKS` order, after checking that
/// every body the table places lies inside them. A second call (two requests raced to read
/// them) keeps the first.
pub fn install_packs(packs: Vec<Vec<u8>>) -> Result<(), String> {
    if packs.len() != STORE_PACKS.len() {
        return Err(format!(
            "{} packs read, {} expected",
            packs.len(),
            STORE_PACKS.len()
        ));
    }
    for (slug, pack, offset, len) in STORE_BODIES {
        let end = *offset as usize + *len as usize;
        if packs[*pack as usize].len() < end {
            return Err(format!(
                "{} is {} bytes, too short for {slug}",
                STORE_PACKS[*pack as usize],
                packs[*pack as usize].len()
            ));
        }
    }
    let _ = PACKS.set(packs.into_iter().map(Vec::into_boxed_slice).collect());
    Ok(())
}

/// The detail body of a system: from the bundle, or from the store's packs once read (`None`
/// before that: the dispatcher reads them before any operation that needs a body).
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
    PACKS
        .get()?
        .get(pack as usize)?
        .get(start..start + len as usize)
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
    cells[index].get_or_init(|| {
        detail(SYSTEMS[index].slug)
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or(serde_json::Value::Null)
    })
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
    cells
        .get(index)?
        .get_or_init(|| serde_json::from_slice(detail(SYSTEMS[index].slug)?).ok())
        .as_ref()
}
